import LineFraming
import Logging
import NIOCore
import NIOEmbedded
import OrientationProtocol
@testable import OrientationServer
import Testing

/// One connection's handler behind the line decoder, as `OrientationSocketServer` installs them,
/// on an `EmbeddedChannel` (issue 22, item 7): no socket, and time is the embedded loop's, moved
/// by the test (`advanceTime`). The real-socket behaviour is in `SocketServerTests` and
/// `HostileInputTests`.
@Suite struct ClientConnectionHandlerTests {
    final class Connection {
        let channel = EmbeddedChannel()
        let hub: SubscriptionHub

        /// A connection; `connected: false` leaves it before `channelActive` (credentials
        /// pending), so that lines can arrive before admission.
        init(connected: Bool = true, _ configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
            var configuration = ServerConfiguration(socketPath: "/unused")
            configure(&configuration)
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            let hub = SubscriptionHub(eventLoop: channel.embeddedEventLoop, configuration: configuration,
                                      privileges: try PrivilegePolicy(uids: [], group: nil), logger: logger, onClaimChange: { _ in })
            self.hub = hub
            try channel.pipeline.syncOperations.addHandlers(
                ByteToMessageHandler(LineFrameDecoder { hub.configuration.maximumLineLength }), ClientConnectionHandler(hub: hub))
            if connected { try connect() }
        }

        func connect() throws {
            try channel.connect(to: SocketAddress(unixDomainSocketPath: "/unused")).wait()
        }

        func send(_ text: String) {
            channel.pipeline.fireChannelRead(ByteBuffer(string: text))
        }

        /// Every line the server wrote since the last call, parsed.
        func received() throws -> [ServerMessage] {
            var messages: [ServerMessage] = []
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
                for line in String(buffer: buffer).split(separator: "\n") {
                    messages.append(try ServerMessage.parse(Array(line.utf8)))
                }
            }
            return messages
        }

        var isOpen: Bool { channel.isActive }

        deinit { _ = try? channel.finish() }
    }

    static func code(_ message: ServerMessage?) -> ProtocolError.Code? {
        if case .error(let error, _)? = message { error.code } else { nil }
    }

    @Test func helloOnConnect() throws {
        let connection = try Connection()
        let messages = try connection.received()
        guard case .hello(let version, _, _)? = messages.first else {
            Issue.record("expected hello, got \(messages)")
            return
        }
        #expect(version == OrientationProtocol.version)
        #expect(messages.count == 1)
    }

    /// A bad request gets an error reply and the connection lives (the next request is answered).
    @Test(arguments: [
        ("{nope", ProtocolError.Code.invalidJSON),
        ("{\"op\":\"fly\"}", .unknownOp),
        ("[1,2]", .invalidRequest),
        ("\"ping\"", .invalidRequest),
    ])
    func aBadRequestGetsAnErrorAndTheConnectionLives(line: String, code: ProtocolError.Code) throws {
        let connection = try Connection()
        _ = try connection.received()
        connection.send(line + "\n")
        let reply = try connection.received()
        #expect(reply.count == 1 && Self.code(reply.first) == code, "\(reply)")
        #expect(connection.isOpen)
        connection.send("{\"op\":\"ping\",\"id\":7}\r\n")
        #expect(try connection.received() == [.pong(id: .number(7))])
    }

    @Test(arguments: [
        ("a line one byte over the limit", "{\"op\":\"ping\"}    \n"),               // 17 bytes
        ("an unterminated line beyond limit + 1", String(repeating: "x", count: 18)),
    ])
    func aLineTooLongIsRefusedAndClosesTheConnection(name: String, text: String) throws {
        let connection = try Connection { $0.maximumLineLength = 16 }
        _ = try connection.received()
        connection.send("{\"op\":\"ping\"}\n" + text)  // the line before it is answered first
        let replies = try connection.received()
        #expect(replies.count == 2, "\(replies)")
        #expect(replies.first == .pong(id: nil))
        #expect(Self.code(replies.last) == .lineTooLong)
        #expect(!connection.isOpen)
    }

    @Test func theLimitIsTheLineWithoutItsTerminator() throws {
        let connection = try Connection { $0.maximumLineLength = 13 }
        _ = try connection.received()
        connection.send("{\"op\":\"ping\"}\r\n")  // 13 bytes and CR LF
        #expect(try connection.received() == [.pong(id: nil)])
        #expect(connection.isOpen)
    }

    /// Every line counts, blank ones too: the burst, then the sustained rate in the loop's time.
    @Test func theRateLimitCountsEveryLineInTheLoopsTime() throws {
        let connection = try Connection {
            $0.requestsPerSecond = 20
            $0.requestBurst = 40
        }
        _ = try connection.received()
        connection.send(String(repeating: "\n", count: 39) + "{\"op\":\"ping\"}\n")  // the burst: 40 lines
        #expect(try connection.received() == [.pong(id: nil)])
        // One second gives 20 lines back.
        connection.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        connection.send(String(repeating: " \n", count: 19) + "{\"op\":\"ping\"}\n")
        #expect(try connection.received() == [.pong(id: nil)])
        #expect(connection.isOpen)
        connection.send("\n")  // the 61st line within the first second
        let replies = try connection.received()
        #expect(replies.count == 1 && Self.code(replies.first) == .rateLimited, "\(replies)")
        #expect(!connection.isOpen)
    }

    /// Lines that arrive before admission (credentials pending) wait, in order, and are answered
    /// after `hello`; a line too long among them is refused after the lines before it.
    @Test func linesBeforeAdmissionWaitForHello() throws {
        let connection = try Connection(connected: false) { $0.maximumLineLength = 32 }
        connection.send("{\"op\":\"ping\",\"id\":1}\n{\"op\":\"ping\",")
        connection.send("\"id\":2}\n")
        #expect(try connection.received().isEmpty)
        try connection.connect()
        let replies = try connection.received()
        #expect(replies.count == 3, "\(replies)")
        if case .hello? = replies.first {} else { Issue.record("hello first: \(replies)") }
        #expect(Array(replies.dropFirst()) == [.pong(id: .number(1)), .pong(id: .number(2))])
    }

    @Test func aLineTooLongBeforeAdmissionIsRefusedAfterHello() throws {
        let alone = try Connection(connected: false) { $0.maximumLineLength = 16 }
        alone.send(String(repeating: "y", count: 18))  // certain without its newline
        try alone.connect()
        let refused = try alone.received()
        #expect(refused.count == 2 && Self.code(refused.last) == .lineTooLong, "\(refused)")
        #expect(!alone.isOpen)

        let connection = try Connection(connected: false) { $0.maximumLineLength = 16 }
        connection.send("{\"op\":\"ping\"}\n" + String(repeating: "y", count: 17) + "\n")
        #expect(try connection.received().isEmpty)
        try connection.connect()
        let replies = try connection.received()
        #expect(replies.count == 3, "\(replies)")
        #expect(replies.dropFirst().first == .pong(id: nil))
        #expect(Self.code(replies.last) == .lineTooLong)
        #expect(!connection.isOpen)
    }

    /// Before admission a client may not make the server hold more than 4 × the line limit.
    @Test func whatWaitsForAdmissionIsBounded() throws {
        let connection = try Connection(connected: false) { $0.maximumLineLength = 16 }
        connection.send(String(repeating: "{\"op\":\"ping\"}\n", count: 4))  // 56 bytes: held
        #expect(try connection.received().isEmpty)
        connection.send("{\"op\":\"ping\"}\n")  // 70 > 64
        let replies = try connection.received()
        #expect(replies.count == 1 && Self.code(replies.first) == .lineTooLong, "\(replies)")
    }

    /// The idle timer runs in the loop's time: a request moves it, the timeout closes.
    @Test func anIdleConnectionIsClosedInTheLoopsTime() throws {
        let connection = try Connection { $0.idleTimeout = 5 }
        _ = try connection.received()
        let loop = connection.channel.embeddedEventLoop
        loop.advanceTime(by: .seconds(3))
        connection.send("{\"op\":\"ping\"}\n")
        #expect(try connection.received() == [.pong(id: nil)])
        loop.advanceTime(by: .seconds(4))  // 4 s since the ping
        #expect(connection.isOpen)
        loop.advanceTime(by: .seconds(1))
        let replies = try connection.received()
        #expect(replies.count == 1 && Self.code(replies.first) == .idleTimeout, "\(replies)")
        #expect(!connection.isOpen)
    }
}
