import Glibc
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
        var template = Array("/tmp/orientationd-static-XXXXXX".utf8CString)
        let directory = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        defer { _ = run(["/bin/rm", "-rf", directory]) }
        let socket = directory + "/d.sock"
        let errors = directory + "/stderr.txt"
        let recording = InstallTests.repository + "/data/xio-fusion/handheld.log"
        let pid = try spawn([root + "/usr/bin/orientationd", "--replay", recording, "--speed", "20", "--socket", socket], stderr: errors)
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        let client = try #require(connect(to: socket, within: 20), "no socket: \(read(errors))")
        defer { close(client) }
        let subscribe = "{\"op\":\"subscribe\"}\n"
        _ = subscribe.withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        // Paced timers and events: the replay runs to its first landscape.
        #expect(readUntil(client, containing: "landscape", within: 20), "\(read(errors))")
        kill(pid, SIGHUP)
        #expect(waitFor(within: 10) { read(errors).contains("configuration reloaded") }, "\(read(errors))")
        kill(pid, SIGUSR1)
        #expect(waitFor(within: 10) { read(errors).contains("ignoring a signal") }, "\(read(errors))")
        let threads = threadNames(pid)
        #expect(threads.contains { $0.hasPrefix("NIO-SGLTN") }, "tasks run on the event loops: \(threads)")
        #expect(threads.allSatisfy { !$0.contains("qos") && !$0.contains("dispatch") }, "libdispatch threads: \(threads)")
        #expect(!read(errors).contains("tasks run on Swift's default executor"), "\(read(errors))")
        kill(pid, SIGTERM)
    }

    private func spawn(_ arguments: [String], stderr: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, nil, argv, environ) == 0 else {
            throw InstallTestError("cannot start \(arguments[0])")
        }
        return pid
    }

    private func run(_ arguments: [String]) -> Int32 {
        guard let pid = try? spawn(arguments, stderr: "/dev/null") else { return 127 }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return status
    }

    private func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }

    /// Polls `condition` (a file's content is not awaitable) until `seconds` have passed.
    private func waitFor(within seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = now() + seconds
        repeat {
            if condition() { return true }
            usleep(10_000)
        } while now() < deadline
        return false
    }

    private func connect(to path: String, within seconds: Double) -> Int32? {
        var result: Int32? = nil
        _ = waitFor(within: seconds) {
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
        let deadline = now() + seconds
        while now() < deadline {
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

    private func read(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func threadNames(_ pid: pid_t) -> [String] {
        guard let directory = opendir("/proc/\(pid)/task") else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let _ = Int(name) else { continue }
            names.append(read("/proc/\(pid)/task/\(name)/comm").filter { $0 != "\n" })
        }
        return names
    }
}

struct InstallTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
