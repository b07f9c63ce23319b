import Glibc

/// Starts `arguments[0]` (an absolute path) with `arguments`, and returns its pid; the caller
/// waits for it.
///
/// The child gets an empty signal mask and default dispositions: the test runner's threads block
/// SIGTERM among others, a child inherits the spawning thread's mask, and one that does not
/// unblock it itself (iio-sensor-proxy, any GLib program) would never see a test's SIGTERM, so
/// `waitpid` would hang.
/// - Parameters:
///   - environment: `KEY=value` entries; `nil` passes the test's own.
///   - stdin: a file to read from; `nil` inherits the test's (under umockdev-wrapper a
///     redirection would go through the testbed).
///   - stdout, stderr: files to create or truncate; `nil` inherits. The same path for both
///     writes them into one file, interleaved as written.
///   - newProcessGroup: the child leads a group of its own, so a test can signal it with its
///     children (`kill(-pid, …)`: the daemon under `umockdev-run`).
public func spawn(_ arguments: [String], environment: [String]? = nil, stdin: String? = nil, stderr: String? = nil,
                  stdout: String? = nil, newProcessGroup: Bool = false) throws(TestError) -> pid_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
    if newProcessGroup { flags |= POSIX_SPAWN_SETPGROUP }
    posix_spawnattr_setflags(&attributes, Int16(flags))
    posix_spawnattr_setpgroup(&attributes, 0)
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    var defaults = sigset_t()
    sigfillset(&defaults)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    if let stdin { posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0) }
    if let stdout { posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
    if let stderr {
        if stderr == stdout {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
    }
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup($0) } + [nil] }
    defer {
        argv.forEach { free($0) }
        envp?.forEach { free($0) }
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attributes)
    }
    var pid: pid_t = 0
    let result: Int32
    if let envp {
        result = envp.withUnsafeBufferPointer {
            posix_spawn(&pid, arguments[0], &actions, &attributes, argv, UnsafeMutablePointer(mutating: $0.baseAddress!))
        }
    } else {
        result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
    }
    guard result == 0 else { throw TestError("cannot start \(arguments[0]): \(String(cString: strerror(result)))") }
    return pid
}

/// A `waitpid` status as a shell reports it: the exit code, or 128 + the signal.
public func exitCode(ofWaitStatus status: Int32) -> Int32 {
    (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
}

/// Sends `signal` and waits for the process to end; its raw `waitpid` status.
@discardableResult
public func stopProcess(_ pid: pid_t, _ signal: Int32 = SIGTERM) -> Int32 {
    kill(pid, signal)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return status
}
