import Glibc
import Logging
import OrientationProtocol
import OrientationServer
import Testing
import TestSupport

/// Issue 9 with the real binaries: crashes, hangs, races and documented behaviour, each the
/// issue's reproduction.
@Suite(.serialized) struct HostileInputTests {
    // MARK: 4. At the file-descriptor limit

    /// With every descriptor in use, a new client is told so at once (not left hanging without a
    /// hello), the daemon says it in its log (once, not per connection), and serves again
    /// once descriptors are free.
    @Test(.enabled(if: access("/usr/bin/prlimit", X_OK) == 0, "needs prlimit"))
    func atTheDescriptorLimitNewClientsAreRefusedCleanly() throws {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess(["/usr/bin/prlimit", "--nofile=64:64", Build.orientationd, "--replay", Build.recording,
                                       "--loop", "--socket", socket], directory: dir)
        #expect(waitForSocket(socket), "\(daemon.stderr)")
        var clients: [TestSocket] = []
        var refused: [String] = []
        for _ in 0..<100 {
            let client = try TestSocket(path: socket)
            guard let line = client.readLine(timeout: 5) else { Issue.record("connection \(clients.count) hangs without a word"); break }
            if line.contains("\"hello\"") { clients.append(client) } else { refused.append(line) }
        }
        #expect(!refused.isEmpty)
        #expect(refused.allSatisfy { $0.contains("\"code\":\"too-many-clients\"") && $0.contains("descriptors") }, "\(refused.first ?? "")")
        let logLines = daemon.stderr.split(separator: "\n").filter { $0.contains("out of file descriptors") }
        #expect(logLines.count >= 1 && logLines.count < refused.count, "logged, rate-limited: \(logLines.count) lines for \(refused.count) refusals")
        clients.removeAll()
        // Closed connections free their descriptors (the server notices the hang-ups first).
        var served = false
        for _ in 0..<50 where !served {
            if let client = try? TestSocket(path: socket), client.readLine(timeout: 5)?.contains("\"hello\"") == true { served = true }
        }
        #expect(served, "serves again once descriptors are free")
        #expect(daemon.terminate() == 0, "\(daemon.stderr)")
    }

    // MARK: 5. Overflow in time conversions

    @Test(arguments: ["1e-30", "1e300", "0", "-1", "nan", "inf", "fast"])
    func anUnusableReplaySpeedIsRefusedClearly(_ speed: String) throws {
        let dir = temporaryDirectory()
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--speed=\(speed)", "--socket", dir + "/d.sock"],
                                      directory: dir)
        #expect(daemon.wait() == 64, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("--speed must be"), "\(daemon.stderr)")
    }

    /// A log whose next sample is 10²¹ s away: the replay waits (as the log says), it does not
    /// crash, and the daemon stays responsive and shuts down cleanly.
    @Test func aHugeGapInALogNeitherCrashesNorBlocksTheDaemon() throws {
        let dir = temporaryDirectory()
        let log = dir + "/gap.log"
        writeText(log, "# orientationd-log v1\ntime,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n0,0,0,-9.8,,,\n1e21,0,0,-9.8,,,\n")
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--replay", log, "--socket", socket], directory: dir)
        #expect(waitForSocket(socket), "\(daemon.stderr)")
        let client = try TestSocket.subscriber(socket)
        client.send("{\"op\":\"ping\"}\n")
        #expect(client.readLine(timeout: 5) { $0.contains("\"pong\"") } != nil, "\(daemon.stderr)")
        #expect(daemon.terminate() == 0, "\(daemon.stderr)")
        #expect(access(socket, F_OK) != 0)
    }

    /// The same log through the offline tools: the detector's motion window converted the gap
    /// to an Int bin count and trapped.
    @Test(arguments: [["replay"], ["evaluate"], ["plot", "-o", "-"]])
    func aHugeGapInALogDoesNotCrashTheOfflineTools(_ command: [String]) throws {
        let dir = temporaryDirectory()
        let log = dir + "/gap.log"
        writeText(log, "# orientationd-log v1\ntime,accel_x,accel_y,accel_z\n0,0,-9.8,0\n0.02,0,-9.8,0\n1e21,0,-9.8,0\n1.000000000000001e21,0,-9.8,0.1\n")
        let tool = try ChildProcess([Build.orientationctl, command[0], log] + command.dropFirst(), directory: dir)
        let status = tool.wait()
        #expect(status == 0 || status == 1, "\(String(describing: status)): \(tool.stderr)")
        #expect(!tool.stderr.contains("Fatal error"), "\(tool.stderr)")
    }

    @Test(arguments: ["1e30", "-1", "nan", "inf"])
    func anUnusableMonitorWaitIsRefusedClearly(_ wait: String) throws {
        let dir = temporaryDirectory()
        let monitor = try ChildProcess([Build.orientationctl, "monitor", "--wait=\(wait)", "--socket", dir + "/none.sock"], directory: dir)
        #expect(monitor.wait() == 64, "\(monitor.stderr)")
        #expect(monitor.stderr.contains("--wait must be"), "\(monitor.stderr)")
    }

    @Test(arguments: ["1e30", "-1", "nan", "0"])
    func anUnusableRecordDurationIsRefusedClearly(_ duration: String) throws {
        let dir = temporaryDirectory()
        let daemon = try ChildProcess([Build.orientationd, "--record", dir + "/r.log", "--duration=\(duration)"], directory: dir)
        #expect(daemon.wait() == 64, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("--duration must be"), "\(daemon.stderr)")
    }

    // MARK: 6. A stopped daemon with a full backlog

    /// The live-socket check must not block: a second daemon facing a stopped one (backlog
    /// full) says the socket is in use and exits.
    @Test func aSecondDaemonFacingAStoppedOneWithAFullBacklogDoesNotHang() throws {
        raiseFileLimit()
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        let first = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--loop", "--socket", socket], directory: dir)
        #expect(waitForSocket(socket))
        kill(first.pid, SIGSTOP)
        defer { kill(first.pid, SIGCONT) }
        var queued: [Int32] = []
        defer { queued.forEach { close($0) } }
        while queued.count < 5000, let fd = nonBlockingConnect(socket) { queued.append(fd) }
        #expect(queued.count < 5000, "the backlog filled")
        let second = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--socket", socket], directory: dir)
        let status = second.wait(timeout: 10)
        #expect(status != nil && status != 0, "the second daemon hangs: \(second.stderr)")
        #expect(second.stderr.contains("in use"), "\(second.stderr)")
        kill(first.pid, SIGCONT)
        #expect(first.terminate() == 0)
    }

    /// A non-blocking connect that succeeded or is queued; nil once the backlog is full.
    func nonBlockingConnect(_ path: String) -> Int32? {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: Array(path.utf8)) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { close(fd); return nil }
        return fd
    }

    // MARK: 7, 10. Configuration files that are not small regular files

    static let unreadableConfigurations: [(path: String, expected: String)] = [
        ("/dev/zero", "not a regular file"),
        ("/tmp", "is a directory"),
        ("/nonexistent/orientationd.conf", "No such file or directory"),
    ]

    @Test(arguments: unreadableConfigurations)
    func aConfigurationThatIsNotARegularFileIsRefusedByEveryReader(_ item: (path: String, expected: String)) throws {
        let dir = temporaryDirectory()
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--config", item.path, "--socket", dir + "/d.sock"],
                                      directory: dir)
        #expect(daemon.wait(timeout: 10) != 0, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("\(item.path): ") && daemon.stderr.contains(item.expected), "\(daemon.stderr)")
        let ctl = try ChildProcess([Build.orientationctl, "replay", Build.recording, "--config", item.path], directory: dir)
        #expect(ctl.wait(timeout: 10) != 0, "\(ctl.stderr)")
        #expect(ctl.stderr.contains("\(item.path): ") && ctl.stderr.contains(item.expected), "\(ctl.stderr)")
    }

    @Test func aHugeConfigurationIsRefused() throws {
        let dir = temporaryDirectory()
        let config = dir + "/huge.conf"
        writeText(config, "[detector]\n" + String(repeating: "# padding\n", count: 200_000))
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--config", config, "--socket", dir + "/d.sock"],
                                      directory: dir)
        #expect(daemon.wait(timeout: 10) != 0)
        #expect(daemon.stderr.contains("\(config): larger than"), "\(daemon.stderr)")
    }

    // MARK: 11. Configuration values

    static let badServerSettings: [(text: String, expected: String)] = [
        ("[server]\n\nsocket-group = no-such-group-here\n", ":3: socket-group: no group named \"no-such-group-here\""),
        ("[server]\nprivileged-group = no-such-group-here\n", ":2: privileged-group: no group named \"no-such-group-here\""),
        ("[server]\nrequests-per-second = inf\n", ":2: requests-per-second: must be a positive, finite number, not \"inf\""),
        ("[server]\nrequest-burst = nan\n", ":2: request-burst: must be"),
        ("[server]\nidle-timeout = 1e400\n", ":2: idle-timeout: must be"),
        ("[server]\n\u{1B}[31mred\u{7} = 1\n", ":2: unknown server setting \\u{1B}[31mred\\u{07}"),
        ("[dbus]\nenable = maybe\n", ":2: enable: must be true or false, not \"maybe\""),
        ("[dbus]\n# the session bus?\nbus = session\n", ":3: unknown dbus setting bus; known: enable"),
        ("[light]\nscale = -2\n", ":2: scale must be a positive number, not \"-2\""),
        ("[light]\nscale = 1e400\n", ":2: scale must be a positive number, not \"1e400\""),
        ("[proximity]\nscale = 2\n", ":2: unknown proximity setting scale; known: device"),
        ("[sensor]\nstill-interval = 9\n", ":2: still-interval must be 0 (off) or a number of seconds up to 5, not \"9\""),
        ("[sensor]\nstill-interval = soon\n", ":2: still-interval must be 0 (off) or a number of seconds up to 5, not \"soon\""),
        ("[compass]\n\u{1B}[31mred\u{7} = 1\n", ":2: unknown compass setting \\u{1B}[31mred\\u{07}"),
    ]

    @Test(arguments: badServerSettings)
    func aBadServerSettingIsNamedWithItsLineAndEscaped(_ item: (text: String, expected: String)) throws {
        let dir = temporaryDirectory()
        let config = dir + "/bad.conf"
        writeText(config, item.text)
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--config", config, "--socket", dir + "/d.sock"],
                                      directory: dir)
        #expect(daemon.wait(timeout: 10) != 0)
        #expect(daemon.stderr.contains(config + item.expected), "\(daemon.stderr)")
        #expect(!daemon.stderr.utf8.contains(0x1B) && !daemon.stderr.utf8.contains(0x07), "control bytes echoed raw")
    }

    @Test func binaryGarbageInAConfigurationIsEscaped() throws {
        let dir = temporaryDirectory()
        let config = dir + "/garbage.conf"
        let file = fopen(config, "w")
        let bytes: [UInt8] = Array("[detector]\n".utf8) + [0x00, 0xFF, 0x1B, 0x5B, 0x32, 0x4A, 0x0D, 0x0A]
        fwrite(bytes, 1, bytes.count, file)
        fclose(file)
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--config", config, "--socket", dir + "/d.sock"],
                                      directory: dir)
        #expect(daemon.wait(timeout: 10) != 0)
        #expect(daemon.stderr.contains("\(config):2: "), "\(daemon.stderr)")
        #expect(!daemon.stderr.utf8.contains(0x1B) && !daemon.stderr.utf8.contains(0x00), "control bytes echoed raw")
    }

    // MARK: 12. Signals a service manager may send

    /// SIGUSR1 and SIGUSR2 are logged and ignored; SIGHUP reloads (issue 8). None kills the daemon.
    @Test(arguments: [SIGHUP, SIGUSR1, SIGUSR2])
    func aStraySignalIsLoggedAndIgnored(_ signal: Int32) throws {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--loop", "--socket", socket], directory: dir)
        #expect(waitForSocket(socket))
        let client = try TestSocket.subscriber(socket)
        kill(daemon.pid, signal)
        client.send("{\"op\":\"ping\"}\n")
        #expect(client.readLine(timeout: 5) { $0.contains("\"pong\"") } != nil, "the daemon died: \(daemon.stderr)")
        #expect(daemon.waitForStderr(containing: signal == SIGHUP ? "configuration reloaded" : "ignoring a signal"), "\(daemon.stderr)")
        #expect(daemon.terminate() == 0, "\(daemon.stderr)")
        #expect(client.readLine(timeout: 5) { $0.contains("\"goodbye\"") } != nil)
    }

    // MARK: 13. The client shows the server's refusal

    @Test func orientationctlShowsWhyAFullServerRefusedIt() async throws {
        let harness = try await ServerHarness.start { $0.maximumClients = 1 }
        let holder = try TestSocket.greeted(harness.path)
        let get = try ChildProcess([Build.orientationctl, "get", "--socket", harness.path], directory: harness.directory)
        #expect(get.wait() == 1)
        #expect(get.stderr.contains("too-many-clients"), "\(get.stderr)")
        #expect(!get.stderr.contains("no hello"), "\(get.stderr)")
        _ = holder
        await harness.stop()
    }

    // MARK: 15. --exit-when-done with nobody subscribed

    /// The replay starts with the first subscriber; with `--exit-when-done` and nobody yet, the
    /// daemon says so instead of waiting silently, then replays and exits once someone comes.
    @Test func exitWhenDoneSaysItWaitsForASubscriber() throws {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        let log = trimmedRecording(from: 14.0, to: 17.0, directory: dir)
        let daemon = try ChildProcess([Build.orientationd, "--replay", log, "--speed", "max", "--exit-when-done", "--socket", socket],
                                      directory: dir)
        #expect(waitForSocket(socket))
        #expect(daemon.stderr.contains("waiting for the first subscriber"), "\(daemon.stderr)")
        #expect(daemon.wait(timeout: 0.5) == nil, "nothing replayed, nothing to exit for yet")
        let client = try TestSocket.subscriber(socket)
        #expect(client.readLine(timeout: 20) { $0.contains("\"goodbye\"") } != nil)
        #expect(daemon.wait() == 0, "\(daemon.stderr)")
    }

    // MARK: 8. The socket's mode and group never follow a symlink

    /// Root binds in a directory another user may write to, while that user keeps swapping the
    /// socket path for a symlink to a file of root's. The file's mode and group never change.
    @Test(.enabled(if: HostileUser.available, "needs root, setpriv and python3 to act as another user"))
    func theSocketsModeAndGroupNeverFollowASymlink() async throws {
        let dir = temporaryDirectory()
        let shared = dir + "/shared"
        mkdir(shared, 0o777)
        chmod(shared, 0o777)  // writable by everyone, not sticky: the dangerous case
        let victim = dir + "/victim"
        writeText(victim, "root's\n")
        chmod(victim, 0o600)
        var before = stat()
        stat(victim, &before)
        let path = shared + "/d.sock"
        // Waits for the socket to appear, swaps it for a symlink at once, then clears the path
        // for the next start.
        let swapper = """
        import os, stat, sys, time
        path, target = sys.argv[1], sys.argv[2]
        print("swapping", flush=True)
        while True:
            try:
                st = os.lstat(path)
            except FileNotFoundError:
                continue
            if stat.S_ISSOCK(st.st_mode):
                try:
                    os.unlink(path); os.symlink(target, path)
                except OSError:
                    pass
            time.sleep(0.002)
            try:
                os.unlink(path)
            except OSError:
                pass
        """
        let attacker = try HostileUser(uid: 65534, script: swapper, arguments: [path, victim], directory: dir)
        #expect(attacker.report() == "swapping")
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        var configuration = ServerConfiguration(socketPath: path)
        configuration.socketMode = 0o666
        configuration.socketGroup = "nogroup"
        var started = 0
        for _ in 0..<300 {
            guard let server = try? await OrientationSocketServer.start(configuration: configuration, logger: logger, onClaimChange: { _ in })
            else { continue }
            started += 1
            await server.shutdown(reason: "again")
            var after = stat()
            stat(victim, &after)
            if after.st_mode != before.st_mode || after.st_gid != before.st_gid { break }
        }
        kill(attacker.process.pid, SIGKILL)
        var after = stat()
        stat(victim, &after)
        #expect(after.st_mode & 0o7777 == 0o600, "root's file was chmodded through a symlink (after \(started) starts)")
        #expect(after.st_gid == before.st_gid, "root's file was chowned through a symlink")
        #expect(started > 0, "the server never started while the path was contested")
    }
}
