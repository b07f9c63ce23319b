import Glibc

/// The built binaries (beside the test bundle) and the repository.
enum Build {
    static var productsDirectory: String {
        let me = CommandLine.arguments[0]
        var parts = me.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        while let last = parts.last, !last.isEmpty, access((parts.joined(separator: "/")) + "/orientationd", X_OK) != 0 {
            parts.removeLast()
        }
        return parts.joined(separator: "/")
    }

    static var orientationd: String { productsDirectory + "/orientationd" }
    static var orientationctl: String { productsDirectory + "/orientationctl" }
    static var repository: String { "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/") }
    static var recording: String { repository + "/data/xio-fusion/handheld.log" }
}

/// A child process with its output captured to files.
final class ChildProcess {
    let pid: pid_t
    let stdoutPath: String
    let stderrPath: String
    private(set) var exitStatus: Int32?

    /// - Parameter environment: variables added to this process's environment for the child.
    init(_ arguments: [String], directory: String, environment: [String] = []) throws {
        stdoutPath = directory + "/out-\(UInt32.random(in: 0...UInt32.max)).txt"
        stderrPath = stdoutPath.replacingSuffix(".txt", with: ".err")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        var inherited: [String] = []
        var entry = environ
        while let variable = entry.pointee {
            inherited.append(String(cString: variable))
            entry += 1
        }
        let envp: [UnsafeMutablePointer<CChar>?] = (inherited + environment).map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        let result = envp.withUnsafeBufferPointer { posix_spawn(&pid, arguments[0], &actions, nil, argv, UnsafeMutablePointer(mutating: $0.baseAddress!)) }
        posix_spawn_file_actions_destroy(&actions)
        guard result == 0 else { throw TestError("cannot start \(arguments[0]): \(result)") }
        self.pid = pid
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    /// Waits for exit (polling waitpid: child exit is not awaitable otherwise), up to `timeout`.
    @discardableResult
    func wait(timeout: Double = 20) -> Int32? {
        if let exitStatus { return exitStatus }
        let deadline = TestSocket.now() + timeout
        repeat {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                return exitStatus
            }
            if timeout > 0 { usleep(5_000) }
        } while TestSocket.now() < deadline
        return nil
    }

    func terminate() -> Int32? {
        kill(pid, SIGTERM)
        return wait()
    }

    /// Waits until standard error contains `text` (a log line appearing in a file is not
    /// awaitable: polled, with a deadline).
    func waitForStderr(containing text: String, timeout: Double = 10) -> Bool {
        let deadline = TestSocket.now() + timeout
        repeat {
            if stderr.contains(text) { return true }
            usleep(10_000)
        } while TestSocket.now() < deadline
        return false
    }

    var stdout: String { Self.read(stdoutPath) }
    var stderr: String { Self.read(stderrPath) }

    static func read(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n == 0 { break }
            bytes.append(contentsOf: buffer[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The names (`comm`) of a process's threads, from /proc.
func threadNames(_ pid: pid_t) -> [String] {
    guard let directory = opendir("/proc/\(pid)/task") else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard let first = tid.first, first.isNumber else { continue }
        var name = ChildProcess.read("/proc/\(pid)/task/\(tid)/comm")
        while name.last == "\n" { name.removeLast() }
        names.append(name)
    }
    return names
}

/// Waits until a server accepts on `path` (the daemon binds asynchronously after spawning).
func waitForSocket(_ path: String, timeout: Double = 20) -> Bool {
    let deadline = TestSocket.now() + timeout
    while TestSocket.now() < deadline {
        if let client = try? TestSocket(path: path), client.readLine(timeout: 2) != nil { return true }
        usleep(10_000)
    }
    return false
}

extension String {
    func replacingSuffix(_ suffix: String, with replacement: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + replacement : self
    }
}

/// Writes the recording's samples between `from` and `to` seconds as a smaller log.
func trimmedRecording(from: Double, to: Double, directory: String) -> String {
    let text = ChildProcess.read(Build.recording)
    var out: [String] = []
    for line in text.split(separator: "\n") {
        if line.hasPrefix("#") || line.hasPrefix("time") {
            out.append(String(line))
        } else if let comma = line.firstIndex(of: ","), let t = Double(line[..<comma]), t >= from, t <= to {
            out.append(String(line))
        }
    }
    let path = directory + "/trimmed.log"
    writeFile(path, out.joined(separator: "\n") + "\n")
    return path
}
