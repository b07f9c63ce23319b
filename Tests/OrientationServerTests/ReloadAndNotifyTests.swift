import Glibc
import Testing
import TestSupport

/// Issue 8, item 3, with the real binary: the service manager's notifications in order, and
/// SIGHUP with a good and with a bad configuration while a subscribed client stays connected.
@Suite struct ReloadAndNotifyTests {
    /// The service manager's end of `NOTIFY_SOCKET`: a datagram socket in a temp directory.
    final class NotifySocket {
        let path: String
        let fd: Int32

        init(directory: String) throws {
            path = directory + "/notify"
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard fd >= 0, bound == 0 else { throw TestError("cannot bind \(path)") }
        }

        deinit { close(fd) }

        /// The next datagram, or nil after `timeout` seconds.
        func next(timeout: Double = 10) -> String? {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buffer, buffer.count, 0)
            return n > 0 ? String(decoding: buffer[..<n], as: UTF8.self) : nil
        }

        /// Reads and drops what is queued (pings pile up while the test does other things; the
        /// kernel queues only net.unix.max_dgram_qlen of them, and drops the daemon's next line).
        func drain() {
            while next(timeout: 0) != nil {}
        }

        /// Datagrams until one satisfies `predicate` (returned with everything before it).
        func until(timeout: Double = 10, _ predicate: (String) -> Bool) -> [String] {
            var seen: [String] = []
            let deadline = monotonicNow() + timeout
            while monotonicNow() < deadline, let message = next(timeout: max(0.01, deadline - monotonicNow())) {
                seen.append(message)
                if predicate(message) { return seen }
            }
            return seen
        }
    }

    @Test func notificationsInOrderAndReloadsWithAGoodAndABadFile() throws {
        let dir = temporaryDirectory()
        let notify = try NotifySocket(directory: dir)
        let config = dir + "/orientationd.conf"
        let socketPath = dir + "/d.sock"
        writeText(config, "[server]\nidle-timeout = 60\n")
        let daemon = try ChildProcess(["/usr/bin/env", "NOTIFY_SOCKET=\(notify.path)", "WATCHDOG_USEC=400000",
                                       Build.orientationd, "--replay", Build.recording, "--loop", "--speed", "4",
                                       "--config", config, "--socket", socketPath], directory: dir)
        defer { _ = daemon.terminate() }

        let start = notify.until { $0.contains("READY=1") }
        #expect(start.last?.hasPrefix("READY=1\nSTATUS=replaying") == true, "\(start)")
        let pings = notify.until { $0 == "WATCHDOG=1" }
        #expect(pings.last == "WATCHDOG=1", "periodic pings: \(pings)")

        let client = try TestSocket.subscriber(socketPath)
        #expect(client.readLine(timeout: 10) { $0.contains("\"type\":\"orientation\"") } != nil, "events flow")

        // A good file: reloaded between RELOADING=1 and READY=1; the client stays.
        writeText(config, "[server]\nidle-timeout = 30\nmax-clients-per-user = 32\n[detector]\nsettle-time = 0.3\n")
        notify.drain()
        kill(daemon.pid, SIGHUP)
        let reloading = notify.until { $0.hasPrefix("RELOADING=1") }
        #expect(reloading.last?.contains("MONOTONIC_USEC=") == true, "\(reloading)")
        #expect(notify.until { $0.hasPrefix("READY=1") }.last?.hasPrefix("READY=1") == true)
        #expect(daemon.waitForStderr(containing: "configuration reloaded"), "\(daemon.stderr)")
        client.send("{\"op\":\"ping\",\"id\":1}\n")
        #expect(client.readLine(timeout: 10) { $0.contains("\"type\":\"pong\"") } != nil, "the subscriber lived through the reload")

        // A bad file: refused with file:line, the running settings stay, the client stays.
        writeText(config, "[server]\nidle-timeout = 30\n[detector]\nsettle-time = banana\n")
        notify.drain()
        kill(daemon.pid, SIGHUP)
        #expect(notify.until { $0.hasPrefix("RELOADING=1") }.last?.hasPrefix("RELOADING=1") == true)
        #expect(notify.until { $0.hasPrefix("READY=1") }.last?.hasPrefix("READY=1") == true)
        #expect(daemon.waitForStderr(containing: "reload refused; keeping the running settings"), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("\(config):4:"), "the bad line is named: \(daemon.stderr)")
        client.send("{\"op\":\"ping\",\"id\":2}\n")
        #expect(client.readLine(timeout: 10) { $0.contains("\"type\":\"pong\"") } != nil, "the subscriber lived through the refusal")
        #expect(client.readLine(timeout: 10) { $0.contains("\"type\":\"orientation\"") } != nil, "events still flow")

        // A changed socket mode is named as needing a restart, and the socket keeps its mode; a
        // socket path in the file loses to --socket, as at startup, so it is no change at all.
        writeText(config, "[server]\nsocket = \(dir)/elsewhere.sock\nsocket-mode = 0600\n")
        notify.drain()
        kill(daemon.pid, SIGHUP)
        #expect(daemon.waitForStderr(containing: "apply only after a restart"), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("settings=socket-mode "), "\(daemon.stderr)")
        var status = stat()
        #expect(stat(socketPath, &status) == 0 && status.st_mode & 0o777 == 0o666)
        #expect(access(dir + "/elsewhere.sock", F_OK) != 0)

        // Stopping: STOPPING=1 last, and the client gets goodbye.
        notify.drain()
        kill(daemon.pid, SIGTERM)
        let end = notify.until { $0.hasPrefix("STOPPING=1") }
        #expect(end.last == "STOPPING=1", "\(end)")
        #expect(client.readLine(timeout: 10) { $0.contains("\"type\":\"goodbye\"") } != nil)
        #expect(daemon.wait() == 0)
    }

    @Test func checkConfigValidatesAndExits() throws {
        let dir = temporaryDirectory()
        let good = dir + "/good.conf", bad = dir + "/bad.conf"
        writeText(good, "[server]\nidle-timeout = 30\n[dbus]\nenable = true\n")
        writeText(bad, "[server]\n\n[sensor]\nbatch = many\n")
        let ok = try ChildProcess([Build.orientationd, "--check-config", good], directory: dir)
        #expect(ok.wait() == 0)
        #expect(ok.stdout.contains("\(good): valid") && ok.stdout.contains("D-Bus on"), "\(ok.stdout) \(ok.stderr)")
        let refused = try ChildProcess([Build.orientationd, "--check-config", bad], directory: dir)
        #expect(refused.wait() == 1)
        #expect(refused.stderr.contains("\(bad):4: "), "\(refused.stderr)")
        let shipped = try ChildProcess([Build.orientationd, "--check-config", Build.repository + "/config/orientationd.conf"], directory: dir)
        #expect(shipped.wait() == 0, "the sample configuration is valid: \(shipped.stderr)")
        let stray = try ChildProcess([Build.orientationd, good], directory: dir)
        #expect(stray.wait() != 0 && stray.stderr.contains("only accepted with --check-config"), "\(stray.stderr)")
    }
}
