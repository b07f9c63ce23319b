import Glibc
import OrientationCore
import OrientationProtocol
import OrientationServer
import Testing
import TestSupport

/// The socket server over real Unix sockets in a temporary directory (server in process).
@Suite struct SocketServerTests {
    static func message(_ line: String?) throws -> ServerMessage {
        let line = try #require(line, "no line from the server")
        return try ServerMessage.parse(Array(line.utf8))
    }

    @Test func greetsWithHelloAndCurrentState() async throws {
        let harness = try await ServerHarness.start()
        harness.server.hub.publish(orientation: .portrait, time: 1.5)
        _ = try await harness.server.hub.state()  // ordered after the publish on the hub's loop
        let client = try TestSocket(path: harness.path)
        guard case let .hello(version, server, state) = try Self.message(client.readLine()) else { Issue.record("no hello"); return }
        #expect(version == 1)
        #expect(server.hasPrefix("orientationd "))
        #expect(state.orientation == .portrait)
        #expect(state.seq == 1)
        await harness.stop()
    }

    @Test func subscribeRepliesAtOnceClaimsTheSensorAndStreamsEventsInOrder() async throws {
        let harness = try await ServerHarness.start()
        let client = try TestSocket.greeted(harness.path)
        client.send("{\"op\":\"subscribe\",\"id\":\"s\"}\n")
        #expect(try Self.message(client.readLine()) == .subscribed(state: OrientationState(), id: .string("s")))
        #expect(await harness.nextClaim() == true)
        let sequence: [DeviceOrientation] = [.portrait, .landscapeLeft, .faceUp, .landscapeLeft]
        for (k, o) in sequence.enumerated() { harness.server.hub.publish(orientation: o, time: Double(k)) }
        var previous = DeviceOrientation.unknown
        for (k, o) in sequence.enumerated() {
            guard case .orientation(let state) = try Self.message(client.readLine()) else { Issue.record("expected an event"); return }
            #expect(state.orientation == o)
            #expect(state.previous == previous)
            #expect(state.seq == UInt64(k + 1))
            #expect(state.time == Double(k))
            previous = o
        }
        // Unsubscribe: the reply, the claim released, and no more events (a ping answers next).
        client.send("{\"op\":\"unsubscribe\"}\n")
        #expect(try Self.message(client.readLine()) == .unsubscribed(id: nil))
        #expect(await harness.nextClaim() == false)
        harness.server.hub.publish(orientation: .portrait, time: 9)
        client.send("{\"op\":\"ping\",\"id\":2}\n")
        #expect(try Self.message(client.readLine()) == .pong(id: .number(2)))
        await harness.stop()
    }

    @Test func duplicatePublishesAreNotEvents() async throws {
        let harness = try await ServerHarness.start()
        let client = try TestSocket.subscriber(harness.path)
        harness.server.hub.publish(orientation: .portrait, time: 1)
        harness.server.hub.publish(orientation: .portrait, time: 2)
        harness.server.hub.publish(orientation: .faceUp, time: 3)
        guard case .orientation(let a) = try Self.message(client.readLine()),
              case .orientation(let b) = try Self.message(client.readLine()) else { Issue.record("expected events"); return }
        #expect([a.orientation, b.orientation] == [.portrait, .faceUp])
        #expect(b.seq == a.seq + 1)
        await harness.stop()
    }

    @Test func aLateClientGetsTheCurrentStateAtOnceAndGetSaysHowOld() async throws {
        let harness = try await ServerHarness.start()
        harness.server.hub.publish(orientation: .landscapeRight, time: 4)
        let client = try TestSocket.greeted(harness.path)
        client.send("{\"op\":\"get\"}\n")
        guard case let .state(state, age, active, subscribers, _, _, _) = try Self.message(client.readLine()) else { Issue.record("no state"); return }
        #expect(state.orientation == .landscapeRight)
        #expect(try #require(age) >= 0)
        #expect(!active)
        #expect(subscribers == 0)
        #expect(harness.claims.isEmpty, "get must not claim the sensor")
        client.send("{\"op\":\"subscribe\"}\n")
        guard case .subscribed(let current, _) = try Self.message(client.readLine()) else { Issue.record("no subscribed"); return }
        #expect(current.orientation == .landscapeRight)
        await harness.stop()
    }

    struct BadInput: Sendable, CustomStringConvertible {
        let name: String
        let bytes: [UInt8]
        let code: ProtocolError.Code
        var description: String { name }
    }

    static let badInputs: [BadInput] = [
        BadInput(name: "invalid JSON", bytes: Array("{\"op\":\n".utf8), code: .invalidJSON),
        BadInput(name: "unknown op", bytes: Array("{\"op\":\"rotate\"}\n".utf8), code: .unknownOp),
        BadInput(name: "not an object", bytes: Array("[\"subscribe\"]\n".utf8), code: .invalidRequest),
        BadInput(name: "binary garbage", bytes: [0x00, 0xFF, 0xFE, 0x80, 0x1B, 0x5B, 0x41, 0x0A], code: .invalidJSON),
        BadInput(name: "invalid UTF-8 in a string", bytes: Array("{\"op\":\"".utf8) + [0xC3, 0x28] + Array("\"}\n".utf8), code: .invalidJSON),
    ]

    /// Each bad line gets its error; the connection lives on, and another subscriber keeps
    /// receiving events throughout.
    @Test(arguments: badInputs)
    func badInputGetsAnErrorAndEveryoneLivesOn(_ input: BadInput) async throws {
        let harness = try await ServerHarness.start()
        let bystander = try TestSocket.subscriber(harness.path)
        let client = try TestSocket.greeted(harness.path)
        client.send(input.bytes)
        guard case .error(let error, _) = try Self.message(client.readLine()) else { Issue.record("no error reply"); return }
        #expect(error.code == input.code)
        client.send("{\"op\":\"ping\"}\n")
        #expect(try Self.message(client.readLine()) == .pong(id: nil))
        harness.server.hub.publish(orientation: .portrait, time: 1)
        guard case .orientation(let state) = try Self.message(bystander.readLine()) else { Issue.record("bystander got nothing"); return }
        #expect(state.orientation == .portrait)
        await harness.stop()
    }

    @Test func anErrorReplyKeepsTheRequestID() async throws {
        let harness = try await ServerHarness.start()
        let client = try TestSocket.greeted(harness.path)
        client.send("{\"op\":\"fly\",\"id\":42}\n")
        guard case .error(let error, let id) = try Self.message(client.readLine()) else { Issue.record("no error"); return }
        #expect(error.code == .unknownOp)
        #expect(id == .number(42))
        await harness.stop()
    }

    @Test func aMebibyteLineIsRefusedAndOnlyThatClientIsClosed() async throws {
        let harness = try await ServerHarness.start()
        let bystander = try TestSocket.subscriber(harness.path)
        let client = try TestSocket.greeted(harness.path)
        client.send([UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20) + [0x0A])
        guard case .error(let error, _) = try Self.message(client.readLine()) else { Issue.record("no error"); return }
        #expect(error.code == .lineTooLong)
        #expect(client.waitForClose())
        harness.server.hub.publish(orientation: .faceDown, time: 1)
        guard case .orientation = try Self.message(bystander.readLine()) else { Issue.record("bystander got nothing"); return }
        await harness.stop()
    }

    @Test func halfALineThenDisconnectLeavesTheServerServing() async throws {
        let harness = try await ServerHarness.start()
        do {
            let client = try TestSocket.greeted(harness.path)
            client.send("{\"op\":\"subscr")
        }
        let next = try TestSocket(path: harness.path)
        guard case .hello = try Self.message(next.readLine()) else { Issue.record("no hello"); return }
        next.send("{\"op\":\"get\"}\n")
        guard case .state(_, _, _, let subscribers, _, _, _) = try Self.message(next.readLine()) else { Issue.record("no state"); return }
        #expect(subscribers == 0)
        await harness.stop()
    }

    @Test func aFloodIsRateLimited() async throws {
        let harness = try await ServerHarness.start { $0.requestsPerSecond = 5; $0.requestBurst = 10 }
        let client = try TestSocket.greeted(harness.path)
        client.send(String(repeating: "{\"op\":\"ping\"}\n", count: 50))
        var pongs = 0
        var limited = false
        while let line = client.readLine() {
            let message = try Self.message(line)
            if case .pong = message { pongs += 1 }
            if case .error(let error, _) = message, error.code == .rateLimited { limited = true }
        }
        #expect(limited)
        #expect(pongs == 10)
        #expect(client.closedByPeer)
        await harness.stop()
    }

    @Test func clientsBeyondTheLimitAreToldAndClosed() async throws {
        let harness = try await ServerHarness.start { $0.maximumClients = 2 }
        let a = try TestSocket(path: harness.path), b = try TestSocket(path: harness.path)
        _ = a.readLine()
        _ = b.readLine()
        let c = try TestSocket(path: harness.path)
        guard case .error(let error, _) = try Self.message(c.readLine()) else { Issue.record("no error"); return }
        #expect(error.code == .tooManyClients)
        #expect(c.waitForClose())
        a.send("{\"op\":\"ping\"}\n")
        #expect(try Self.message(a.readLine()) == .pong(id: nil))
        await harness.stop()
    }

    @Test func shutdownSaysGoodbyeAndRemovesTheSocket() async throws {
        let harness = try await ServerHarness.start { $0.socketMode = 0o660 }
        var info = stat()
        #expect(lstat(harness.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        let client = try TestSocket.greeted(harness.path)
        await harness.stop()
        #expect(try Self.message(client.readLine()) == .goodbye(reason: "test over"))
        #expect(client.waitForClose())
        #expect(access(harness.path, F_OK) != 0, "socket file removed")
    }

    /// A client that never reads costs bounded memory and delays nobody: the others get every
    /// event; when it finally reads, it gets the newest state (coalesced), not the whole backlog.
    @Test func aStalledClientIsCoalescedAndDelaysNobody() async throws {
        let harness = try await ServerHarness.start { $0.writeBufferHighWaterMark = 8 * 1024; $0.writeBufferLowWaterMark = 2 * 1024 }
        let stalled = try TestSocket(path: harness.path)
        var small: Int32 = 4096
        setsockopt(stalled.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        stalled.send("{\"op\":\"subscribe\"}\n")
        let reader = try TestSocket.subscriber(harness.path)
        let cycle: [DeviceOrientation] = [.portrait, .landscapeLeft, .portraitUpsideDown, .landscapeRight]
        // Enough events to fill the stalled client's socket buffers many times over (~130 bytes
        // each); the reader keeps up, reading each event as it comes, as a live client does.
        let count = 8_000
        for k in 0..<count {
            harness.server.hub.publish(orientation: cycle[k % 4], time: Double(k))
            guard case .orientation(let state) = try Self.message(reader.readLine()) else { Issue.record("reader missed event \(k)"); return }
            if state.seq != UInt64(k + 1) { Issue.record("reader got seq \(state.seq), expected \(k + 1)"); return }
        }
        // The stalled client, drained now: fewer lines than events, ending with the newest.
        var lines = 0
        var last: OrientationState? = nil
        while let line = stalled.readLine(timeout: 1) {
            lines += 1
            if case .orientation(let state) = try Self.message(line) { last = state }
        }
        #expect(lines < count, "events were coalesced")
        #expect(last?.seq == UInt64(count), "the newest state was delivered")
        await harness.stop()
    }

    @Test func rootMayLockAndEverySubscriberSeesIt() async throws {
        let harness = try await ServerHarness.start()
        let subscriber = try TestSocket.subscriber(harness.path)
        let admin = try TestSocket(path: harness.path)  // this test process runs as root
        _ = admin.readLine()
        admin.send("{\"op\":\"lock\",\"id\":1}\n")
        guard case .lock(let state, let id) = try Self.message(admin.readLine()) else { Issue.record("no lock reply"); return }
        #expect(state.locked && id == .number(1))
        guard case .lock(let seen, nil) = try Self.message(subscriber.readLine()) else { Issue.record("subscriber not told"); return }
        #expect(seen.locked)
        #expect(try await harness.server.hub.state().locked)
        await harness.stop()
    }

    /// An unprivileged peer (a real second uid, through setpriv) is refused; a uid listed in the
    /// configuration is allowed.
    @Test(arguments: [false, true])
    func lockByAnUnprivilegedPeer(listed: Bool) async throws {
        guard getuid() == 0, access("/usr/bin/setpriv", X_OK) == 0, access("/usr/bin/python3", X_OK) == 0 else {
            Issue.record("needs root, setpriv and python3 to act as a second user")
            return
        }
        let harness = try await ServerHarness.start { if listed { $0.privilegedUIDs = [65534] } }
        let script = """
        import socket,sys
        s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f=s.makefile('rwb')
        f.readline(); f.write(b'{"op":"lock"}\\n'); f.flush(); print(f.readline().decode().strip())
        """
        let output = runProcess(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                 "/usr/bin/python3", "-c", script, harness.path]).stdout
        let reply = try Self.message(output.split(separator: "\n").first.map(String.init))
        if listed {
            guard case .lock(let state, _) = reply else { Issue.record("listed uid refused: \(output)"); return }
            #expect(state.locked)
        } else {
            guard case .error(let error, _) = reply else { Issue.record("unprivileged lock allowed: \(output)"); return }
            #expect(error.code == .permissionDenied)
            #expect(error.message.contains("uid 65534"))
            // Issue 21: say that no group is configured, and how to configure one.
            #expect(error.message.contains("no privileged group is configured"), "\(error.message)")
            #expect(error.message.contains("privileged-group = GROUP in [server]"), "\(error.message)")
            #expect(try !(await harness.server.hub.state().locked))
        }
        await harness.stop()
    }
}
