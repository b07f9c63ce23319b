import Glibc

/// A child process whose standard output and error go to files in a directory (so a test can
/// read what it printed while it runs); standard input is /dev/null. Killed and reaped if
/// dropped while running.
public final class ChildProcess {
    public let pid: pid_t
    public let stdoutPath: String
    public let stderrPath: String
    public private(set) var exitStatus: Int32?

    /// - Parameter environment: `KEY=value` entries; `nil` passes the test's own.
    public init(_ arguments: [String], directory: String, environment: [String]? = nil) throws(TestError) {
        stdoutPath = directory + "/out-\(UInt32.random(in: 0...UInt32.max)).txt"
        stderrPath = stdoutPath.replacingSuffix(".txt", with: ".err")
        pid = try spawn(arguments, environment: environment, stdin: "/dev/null", stderr: stderrPath, stdout: stdoutPath)
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    /// Waits for exit (polling waitpid: child exit is not awaitable otherwise), up to `timeout`;
    /// the exit code (128 + signal when killed), or `nil` if it still runs.
    @discardableResult
    public func wait(timeout: Double = 20) -> Int32? {
        if let exitStatus { return exitStatus }
        let deadline = monotonicNow() + timeout
        repeat {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                exitStatus = exitCode(ofWaitStatus: status)
                return exitStatus
            }
            if timeout > 0 { usleep(5_000) }
        } while monotonicNow() < deadline
        return nil
    }

    /// SIGTERM, then waits for the exit.
    public func terminate() -> Int32? {
        kill(pid, SIGTERM)
        return wait()
    }

    /// Waits until standard error contains `text` (a log line appearing in a file is not
    /// awaitable: polled, with a deadline).
    public func waitForStderr(containing text: String, timeout: Double = 10) -> Bool {
        waitUntil(timeout: timeout) { stderr.contains(text) }
    }

    public var stdout: String { readText(stdoutPath) }
    public var stderr: String { readText(stderrPath) }
}

/// What a finished command printed.
public struct ProcessResult: Sendable {
    /// The exit code (128 + signal when killed; 127 when it could not start).
    public var status: Int32
    public var stdout: String
    /// Empty when merged into `stdout`.
    public var stderr: String
    public var lines: [String] { stdout.split(separator: "\n").map(String.init) }
}

/// Runs a command to its end and returns what it printed (through files, so no pipe can fill
/// up and block it).
/// - Parameters:
///   - environment: `KEY=value` entries; `nil` passes the test's own.
///   - directory: the working directory (through `env -C`); `nil` keeps the test's.
///   - input: its standard input; without, /dev/null.
///   - mergingStandardError: stderr goes into `stdout`, interleaved as written.
public func runProcess(_ arguments: [String], environment: [String]? = nil, directory: String? = nil, input: [UInt8]? = nil,
                       mergingStandardError: Bool = false) -> ProcessResult {
    let scratch = temporaryDirectory("run")
    defer { removeTree(scratch) }
    let inputPath = scratch + "/stdin"
    writeBytes(inputPath, input ?? [])
    let stdoutPath = scratch + "/stdout", stderrPath = mergingStandardError ? stdoutPath : scratch + "/stderr"
    let command = directory.map { ["/usr/bin/env", "-C", $0, "--"] + arguments } ?? arguments
    let pid: pid_t
    do {
        pid = try spawn(command, environment: environment, stdin: inputPath, stderr: stderrPath, stdout: stdoutPath)
    } catch {
        return ProcessResult(status: 127, stdout: mergingStandardError ? "\(error)" : "", stderr: mergingStandardError ? "" : "\(error)")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return ProcessResult(status: exitCode(ofWaitStatus: status), stdout: readText(stdoutPath),
                         stderr: mergingStandardError ? "" : readText(stderrPath))
}
