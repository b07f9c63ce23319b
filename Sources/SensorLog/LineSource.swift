import Glibc

/// Splits a file descriptor (or an in-memory buffer) into lines without holding more than one
/// chunk plus one line in memory.
///
/// Lines end at `\n`; one `\r` before it is removed; a final line without `\n` is still returned.
/// A line longer than `maxLineLength` bytes is skipped (its bytes are read and dropped, never
/// buffered) and reported as ``SensorLogError/Kind/lineTooLong(limit:)``; reading continues after
/// it. A read error is sticky: it is thrown again by every later call.
public struct LineSource: ~Copyable {
    public static let defaultChunkSize = 256 * 1024
    public static let defaultMaxLineLength = 65_536

    /// The path (`"-"` for standard input) used in errors.
    public let name: String
    private let fd: Int32
    private let closesFD: Bool
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private let chunkSize: Int
    public let maxLineLength: Int
    private var start = 0
    private var end = 0
    private var atEOF: Bool
    private var failure: SensorLogError?
    /// Number of the line most recently returned (or skipped as too long); 0 before the first.
    public private(set) var lineNumber = 0

    /// Opens `path` for reading (`"-"` is standard input, which is not closed afterwards).
    public init(path: String, chunkSize: Int = defaultChunkSize, maxLineLength: Int = defaultMaxLineLength)
        throws(SensorLogError)
    {
        precondition(chunkSize > 0 && maxLineLength > 0)
        if path == "-" {
            fd = STDIN_FILENO
            closesFD = false
        } else {
            let opened = open(path, O_RDONLY | O_CLOEXEC)
            if opened < 0 { throw SensorLogError(file: path, line: nil, kind: .cannotOpen(errno: errno)) }
            fd = opened
            closesFD = true
        }
        name = path
        self.chunkSize = chunkSize
        self.maxLineLength = maxLineLength
        // Room for one maximal unterminated line (plus CR) and one more chunk behind it.
        capacity = chunkSize + maxLineLength + 2
        buffer = .allocate(capacity: capacity)
        atEOF = false
    }

    /// Serves lines from a copy of `bytes`.
    init(bytes: [UInt8], name: String, maxLineLength: Int = defaultMaxLineLength) {
        self.name = name
        fd = -1
        closesFD = false
        chunkSize = max(bytes.count, 1)
        self.maxLineLength = maxLineLength
        capacity = max(bytes.count, 1)
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { storage.update(from: base, count: source.count) }
        }
        buffer = storage
        end = bytes.count
        atEOF = true
    }

    deinit {
        buffer.deallocate()
        if closesFD { close(fd) }
    }

    private func tooLong(_ line: Int) -> SensorLogError {
        SensorLogError(file: name, line: line, kind: .lineTooLong(limit: maxLineLength))
    }

    /// The next line without its terminator, valid until the next call; `nil` at end of input.
    public mutating func nextLine() throws(SensorLogError) -> UnsafeBufferPointer<UInt8>? {
        if let failure { throw failure }
        var scanned = 0  // bytes after `start` known to contain no newline
        while true {
            let available = end - start - scanned
            if available > 0, let hit = memchr(buffer + start + scanned, 0x0A, available) {
                let newline = buffer.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                let lineStart = start
                start = newline + 1
                return try finishLine(from: lineStart, to: newline)
            }
            scanned = end - start
            if atEOF {
                if start == end { return nil }
                let lineStart = start
                start = end
                return try finishLine(from: lineStart, to: end)
            }
            if end - start > maxLineLength + 1 {
                lineNumber += 1
                let number = lineNumber
                try discardThroughNewline()
                throw tooLong(number)
            }
            try fill()
        }
    }

    @inline(__always)
    private mutating func finishLine(from lineStart: Int, to lineEnd: Int) throws(SensorLogError)
        -> UnsafeBufferPointer<UInt8>
    {
        lineNumber += 1
        var count = lineEnd - lineStart
        if count > 0 && buffer[lineEnd - 1] == 0x0D { count -= 1 }
        if count > maxLineLength { throw tooLong(lineNumber) }
        return UnsafeBufferPointer(start: buffer + lineStart, count: count)
    }

    /// Drops buffered bytes and reads on until just after the next newline (or end of input).
    private mutating func discardThroughNewline() throws(SensorLogError) {
        while true {
            if end > start, let hit = memchr(buffer + start, 0x0A, end - start) {
                start = buffer.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + 1
                return
            }
            start = end
            if atEOF { return }
            try fill()
        }
    }

    /// Moves unconsumed bytes to the front and reads one more chunk after them.
    private mutating func fill() throws(SensorLogError) {
        if start > 0 {
            let remaining = end - start
            if remaining > 0 { memmove(buffer, buffer + start, remaining) }
            start = 0
            end = remaining
        }
        let want = min(chunkSize, capacity - end)
        while true {
            let n = read(fd, buffer + end, want)
            if n > 0 {
                end += n
                return
            }
            if n == 0 {
                atEOF = true
                return
            }
            let code = errno
            if code == EINTR { continue }
            let error = SensorLogError(file: name, line: nil, kind: .readFailed(errno: code))
            failure = error
            throw error
        }
    }
}
