import Glibc
import OrientationClient
import OrientationCore
import OrientationProtocol
import Testing
import TestSupport

/// The daemon's lifecycle and failure modes, with the real binaries.
@Suite(.serialized) struct DaemonLifecycleTests {
    @Test func lockByRootIsReflectedInEveryClientsPolicy() throws {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        // Device: portrait at 15.9, then landscape-right at 30.7 and landscape-left at 35.9.
        let log = trimmedRecording(from: 14.0, to: 38.0, directory: dir)
        let daemon = try ChildProcess([Build.orientationd, "--replay", log, "--speed", "4", "--exit-when-done", "--socket", socket], directory: dir)
        #expect(waitForSocket(socket))
        let a = try ChildProcess([Build.orientationctl, "follow", "--once", "--json", "--socket", socket], directory: dir)
        let b = try ChildProcess([Build.orientationctl, "follow", "--once", "--json", "--supported", "all-but-upside-down", "--socket", socket], directory: dir)
        // Lock once the device is portrait (log 15.9 s), before the landscapes (30.7 s).
        let client = try TestSocket.greeted(socket)
        client.send("{\"op\":\"subscribe\"}\n")
        #expect(client.readLine(timeout: 20) { $0.contains("\"orientation\":\"portrait\"") && $0.contains("\"type\":\"orientation\"") } != nil)
        let locked = runProcess([Build.orientationctl, "lock", "--socket", socket]).stdout
        #expect(locked == "rotation locked\n")
        #expect(a.wait() == 0 && b.wait() == 0 && daemon.wait() == 0)
        for follower in [a, b] {
            let decisions = follower.stdout.split(separator: "\n").compactMap { try? JSONReader.parse(String($0)) }
            #expect(!decisions.contains { $0["interface"]?.stringValue?.hasPrefix("landscape") == true },
                    "rotation was locked before the landscapes: \(follower.stdout)")
        }
    }

    /// `follow --exec` runs the command for every decision, with the decision in its
    /// environment, in order, and reports a failing command without stopping.
    @Test func followRunsTheCommandForEachDecision() throws {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        let record = dir + "/decisions.txt"
        let log = trimmedRecording(from: 14.0, to: 38.0, directory: dir)
        let daemon = try ChildProcess([Build.orientationd, "--replay", log, "--speed", "max", "--exit-when-done", "--socket", socket], directory: dir)
        #expect(waitForSocket(socket))
        let follower = try ChildProcess([Build.orientationctl, "follow", "--once", "--socket", socket, "--exec",
                                         "echo \"$ORIENTATION_INTERFACE $ORIENTATION_ROTATION $ORIENTATION_XRANDR\" >> \(record); exit 3"],
                                        directory: dir)
        #expect(follower.wait() == 0, "\(follower.stderr)")
        #expect(daemon.wait() == 0)
        let decisions = readText(record).split(separator: "\n").map(String.init)
        #expect(decisions == follower.stdout.split(separator: "\n").map { line in
            let parts = line.split(separator: " ")
            let xrandr = ["0": "normal", "90": "right", "180": "inverted", "270": "left"][String(parts[1])] ?? "?"
            return "\(parts[0]) \(parts[1]) \(xrandr)"
        }, "one command per printed decision, in order: \(follower.stdout)")
        #expect(decisions.contains { $0.hasPrefix("landscape") }, "\(decisions)")
        #expect(follower.stderr.contains("command exited with status 3"), "\(follower.stderr)")
    }

    @Test func sigtermSaysGoodbyeRemovesTheSocketAndExitsZero() throws {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--loop", "--socket", socket], directory: dir)
        #expect(waitForSocket(socket))
        let client = try TestSocket.subscriber(socket)
        #expect(daemon.terminate() == 0, "\(daemon.stderr)")
        #expect(client.readLine(timeout: 5) { $0.contains("\"type\":\"goodbye\"") } != nil)
        #expect(client.waitForClose())
        #expect(access(socket, F_OK) != 0)
        #expect(daemon.stderr.contains("socket server stopped"))
    }

    /// An idle daemon must not wake (issue 10), and the first thing that would wake it is
    /// libdispatch's worker pool: its monitor, a 1 s timer, starts with the pool's first job and
    /// never stops. After a paced replay with a subscriber (timers), a SIGHUP reload and an
    /// ignored SIGUSR1 (signals), the daemon must have no libdispatch thread at all (their
    /// names end in "qos" or "qos.overcommit"). Timers on `Task.sleep`, or signals through
    /// swift-service-lifecycle's dispatch sources, each made it fail.
    @Test func nothingTheDaemonDoesStartsLibdispatchsPool() throws {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--speed", "20", "--socket", socket], directory: dir)
        #expect(waitForSocket(socket))
        let client = try TestSocket.subscriber(socket)
        let paced = client.readLine(timeout: 10) { $0.contains("\"type\":\"orientation\"") && $0.contains("landscape") }
        #expect(paced != nil, "the replay ran, paced, to its first landscape: \(daemon.stderr)")
        kill(daemon.pid, SIGHUP)
        #expect(daemon.waitForStderr(containing: "configuration reloaded"), "\(daemon.stderr)")
        kill(daemon.pid, SIGUSR1)
        #expect(daemon.waitForStderr(containing: "ignoring a signal"), "\(daemon.stderr)")
        let threads = threadNames(daemon.pid)
        #expect(threads.count >= 3, "\(threads)")
        #expect(threads.allSatisfy { !$0.contains("qos") && !$0.contains("dispatch") }, "libdispatch threads: \(threads)")
        #expect(daemon.terminate() == 0, "\(daemon.stderr)")
    }

    /// The socket server runs on SwiftNIO's singleton loops, the daemon's executor, not on a loop
    /// thread of its own (issue 37: a thread that only waited, with its stack, malloc arena and
    /// kernel stack). With a subscriber served, the daemon's only NIO threads are the two
    /// `NIO-SGLTN` loops; before, the server's `NIO-ELT` was a third.
    @Test func theSocketServerHasNoThreadOfItsOwn() throws {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--speed", "20", "--socket", socket], directory: dir)
        #expect(waitForSocket(socket))
        let client = try TestSocket.subscriber(socket)
        let served = client.readLine(timeout: 10) { $0.contains("\"type\":\"orientation\"") }
        #expect(served != nil, "the subscriber was served: \(daemon.stderr)")
        let loops = threadNames(daemon.pid).filter { $0.hasPrefix("NIO-") }
        #expect(loops.count == 2 && loops.allSatisfy { $0.hasPrefix("NIO-SGLTN") }, "\(loops)")
        #expect(daemon.terminate() == 0, "\(daemon.stderr)")
        #expect(client.readLine(timeout: 5) { $0.contains("\"type\":\"goodbye\"") } != nil)
    }

    /// SIGTERM the moment the socket appears, before the service group may run: still a graceful
    /// exit (status 0, socket removed), never death by signal (make test-repeat caught it: 143).
    @Test func sigtermDuringStartupIsStillGraceful() throws {
        for run in 0..<10 {
            let dir = temporaryDirectory()
            let socket = dir + "/d.sock"
            let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--loop", "--socket", socket], directory: dir)
            let deadline = monotonicNow() + 20
            while access(socket, F_OK) != 0, monotonicNow() < deadline { usleep(500) }  // a file appearing is not awaitable
            let status = daemon.terminate()
            #expect(status == 0, "run \(run): \(String(describing: status)) \(daemon.stderr)")
            #expect(access(socket, F_OK) != 0, "run \(run): socket file left behind")
            if status != 0 { break }
        }
    }

    @Test func aRegularFileAtTheSocketPathIsRefusedAndKept() throws {
        let dir = temporaryDirectory()
        let path = dir + "/notes.txt"
        writeText(path, "keep me\n")
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--socket", path], directory: dir)
        #expect(daemon.wait() != 0)
        #expect(daemon.stderr.contains("\(path) exists and is a regular file, not a socket; refusing to replace it"), "\(daemon.stderr)")
        #expect(readText(path) == "keep me\n")
    }

    @Test func aBadConfigurationKeyIsNamedWithItsLine() throws {
        let dir = temporaryDirectory()
        let config = dir + "/orientationd.conf"
        writeText(config, "[server]\nmax-clients = 10\n\n[detector]\nsettle-tim = 0.2\n")
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--config", config, "--socket", dir + "/s"], directory: dir)
        #expect(daemon.wait() != 0)
        #expect(daemon.stderr.contains("\(config):5: unknown detector parameter settle-tim; did you mean 'settle-time'?"), "\(daemon.stderr)")
        let bad = dir + "/server.conf"
        writeText(bad, "[server]\nmax-clients = many\n")
        let other = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--config", bad, "--socket", dir + "/s"], directory: dir)
        #expect(other.wait() != 0)
        #expect(other.stderr.contains("\(bad):2: max-clients: must be a positive whole number, not \"many\""), "\(other.stderr)")
    }

    @Test func aMalformedReplayLogNamesFileAndLine() throws {
        let dir = temporaryDirectory()
        let log = dir + "/bad.log"
        writeText(log, "# orientationd-log v1\ntime,accel_x,accel_y,accel_z\n0,0,-9.8,0\n0.1,0,x,0\n")
        let daemon = try ChildProcess([Build.orientationd, "--replay", log, "--socket", dir + "/s"], directory: dir)
        #expect(daemon.wait() != 0)
        #expect(daemon.stderr.contains("\(log):4: column accel_y: \"x\" is not a number"), "\(daemon.stderr)")
    }

    /// The Swift client survives a daemon restart: it reports the disconnect, reconnects,
    /// re-subscribes and delivers the current state.
    @Test func theClientLibraryReconnectsAfterARestart() async throws {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        let log = trimmedRecording(from: 14.0, to: 20.0, directory: dir)  // ends in portrait
        var daemon = try ChildProcess([Build.orientationd, "--replay", log, "--speed", "max", "--socket", socket], directory: dir)
        #expect(waitForSocket(socket))
        let client = OrientationClient(socketPath: socket)
        var updates = client.updates(reconnect: ReconnectPolicy(initialDelay: 0.05, maximumDelay: 0.2)).makeAsyncIterator()
        guard case .connected = await updates.next() else { Issue.record("not connected"); return }
        // Wait for portrait, then restart the daemon.
        while let update = await updates.next() {
            if case .orientation(let state) = update, state.orientation == .portrait { break }
        }
        #expect(daemon.terminate() == 0)
        guard case .disconnected(let reason) = await updates.next() else { Issue.record("no disconnect"); return }
        #expect(reason == "orientationd is shutting down")
        daemon = try ChildProcess([Build.orientationd, "--replay", log, "--speed", "max", "--socket", socket], directory: dir)
        var reconnected: OrientationState? = nil
        while let update = await updates.next() {
            if case .connected(let state) = update { reconnected = state; break }
        }
        #expect(reconnected != nil, "reconnected after the restart")
        // The new daemon replays for the re-subscribed client and reaches portrait again.
        var sawPortrait = reconnected?.orientation == .portrait
        while !sawPortrait, let update = await updates.next() {
            if case .orientation(let state) = update, state.orientation == .portrait { sawPortrait = true }
        }
        #expect(sawPortrait)
        #expect(daemon.terminate() == 0)
    }

    /// The shipped sample configuration, every setting uncommented as a user would (the leading
    /// `#` removed, the comment after the value kept), is accepted by the daemon: every value
    /// shown is a default (issue 21: `#privileged-group = wheel` was an example, and uncommented
    /// on Debian it failed with `no group named "wheel"`).
    @Test func theSampleConfigurationIsAcceptedByTheDaemon() throws {
        let dir = temporaryDirectory()
        let sample = readText(Build.repository + "/config/orientationd.conf")
        let uncommented = sample.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.hasPrefix("#"), line.dropFirst().first?.isLetter == true, line.contains("=") else { return String(line) }
            return String(line.dropFirst())
        }.joined(separator: "\n")
        let config = dir + "/orientationd.conf"
        writeText(config, uncommented)
        let check = try ChildProcess([Build.orientationd, "--check-config", config], directory: dir)
        #expect(check.wait() == 0, "every uncommented line is valid: \(check.stderr)")
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--config", config, "--socket", socket, "--replay", Build.recording,
                                       "--speed", "max", "--exit-when-done"], directory: dir)
        #expect(waitForSocket(socket), "\(daemon.stderr)")
        let client = try TestSocket.greeted(socket)
        client.send("{\"op\":\"subscribe\"}\n")
        #expect(client.readLine(timeout: 20) { $0.contains("\"goodbye\"") } != nil)
        #expect(daemon.wait() == 0, "\(daemon.stderr)")
    }
}
