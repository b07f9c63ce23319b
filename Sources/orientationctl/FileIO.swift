import ArgumentParser
import Glibc

/// Reads a whole (small) file, or standard input for "-".
func readFile(_ path: String) throws -> [UInt8] {
    let fd = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw ValidationError("\(path): cannot open: \(String(cString: strerror(errno)))") }
    defer { if fd != STDIN_FILENO { close(fd) } }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw ValidationError("\(path): read failed: \(String(cString: strerror(errno)))")
        }
        if n == 0 { return result }
        result.append(contentsOf: buffer[0..<n])
    }
}

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

/// Writes `bytes` to `path` (created or truncated, mode 0644), all or nothing reported.
func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw ValidationError("\(path): cannot create: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var offset = 0
    while offset < bytes.count {
        let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw ValidationError("\(path): write failed: \(String(cString: strerror(errno)))")
        }
        offset += n
    }
}
