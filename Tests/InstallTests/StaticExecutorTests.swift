import Glibc
import TestSupport
import Testing

/// The executor takeover exists for the release build: `--static-swift-stdlib` hides the
/// runtime's hooks from dlsym, which is why `CGlobalExecutorHook` sets them from C (issue 22,
/// item 3). So the check that nothing the daemon does starts libdispatch's worker pool (whose
/// 1 s monitor would wake an idle daemon for good) runs here, on the installed static binary,
/// as well as on the debug build (DaemonLifecycleTests).
@Suite(.enabled(if: Staged.destdir != nil, "run by scripts/run-tests.sh after make install into a DESTDIR"))
struct StaticExecutorTests {
    @Test func theInstalledDaemonNeverStartsLibdispatchsPool() throws {
        let root = try #require(Staged.destdir)
        let directory = temporaryDirectory("static-executor")
        defer { removeTree(directory) }
        let socket = directory + "/d.sock"
        let recording = InstallTests.repository + "/data/xio-fusion/handheld.log"
        let daemon = try ChildProcess([root + "/usr/bin/orientationd", "--replay", recording, "--speed", "20", "--socket", socket],
                                      directory: directory)
        let client = try #require(connect(to: socket, within: 20), "no socket: \(daemon.stderr)")
        defer { close(client) }
        let subscribe = "{\"op\":\"subscribe\"}\n"
        _ = subscribe.withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        // Paced timers and events: the replay runs to its first landscape.
        #expect(readUntil(client, containing: "landscape", within: 20), "\(daemon.stderr)")
        kill(daemon.pid, SIGHUP)
        #expect(daemon.waitForStderr(containing: "configuration reloaded"), "\(daemon.stderr)")
        kill(daemon.pid, SIGUSR1)
        #expect(daemon.waitForStderr(containing: "ignoring a signal"), "\(daemon.stderr)")
        let threads = threadNames(daemon.pid)
        #expect(threads.contains { $0.hasPrefix("NIO-SGLTN") }, "tasks run on the event loops: \(threads)")
        #expect(threads.allSatisfy { !$0.contains("qos") && !$0.contains("dispatch") }, "libdispatch threads: \(threads)")
        #expect(!daemon.stderr.contains("tasks run on Swift's default executor"), "\(daemon.stderr)")
        #expect(daemon.terminate() == 0, "\(daemon.stderr)")
    }

    private func connect(to path: String, within seconds: Double) -> Int32? {
        var result: Int32? = nil
        _ = waitUntil(timeout: seconds) {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
            }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if connected == 0 { result = fd; return true }
            close(fd)
            return false
        }
        return result
    }

    private func readUntil(_ fd: Int32, containing text: String, within seconds: Double) -> Bool {
        var received: [UInt8] = []
        let deadline = monotonicNow() + seconds
        while monotonicNow() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return false }
            received += buffer[0..<count]
            if String(decoding: received, as: UTF8.self).contains(text) { return true }
        }
        return false
    }
}
