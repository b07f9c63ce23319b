import ArgumentParser
import Glibc

/// Writes a line to standard error (diagnostics never mix with the events on standard output).
func printError(_ message: String) {
    var line = Array((message + "\n").utf8)
    _ = line.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// Collects standard output in large writes (a trace is one line per sample).
struct OutputBuffer {
    private var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(1 << 16) }

    mutating func appendLine(_ line: String) {
        bytes.append(contentsOf: line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        if bytes.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                break  // stdout closed (e.g. piped into head): nothing more to do
            }
            offset += n
        }
        bytes.removeAll(keepingCapacity: true)
    }
}

/// Writes `bytes` to `path` (created or truncated, mode 0644), all or nothing reported. A
/// failure is a run-time error (exit status 1, no usage text: issue 27, `plot -o
/// /nonexistent/dir/x.svg` printed the usage as if the command line were wrong).
func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw CleanExit.message("\(path): cannot create: \(String(cString: strerror(errno)))", failing: true) }
    defer { close(fd) }
    var offset = 0
    while offset < bytes.count {
        let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw CleanExit.message("\(path): write failed: \(String(cString: strerror(errno)))", failing: true)
        }
        offset += n
    }
}
