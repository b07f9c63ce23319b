import Glibc
import Logging

/// Log lines for journald when standard error is its stream (`JOURNAL_STREAM`): a `<N>` syslog
/// priority prefix, which journald turns into the entry's priority (so `journalctl -p warning`
/// works), no timestamp of our own (the journal stamps every entry), one entry per line.
///
/// Format: `<6>opening sensor device=iio:device0 name=accel_3d [SensorIIO]`: the message first,
/// then every metadata pair (the device, the client), then the emitting module.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let output: @Sendable (String) -> Void

    public init(output: @escaping @Sendable (String) -> Void = JournalLogHandler.writeToStandardError) {
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// syslog(3) priorities, as journald reads them from a `<N>` prefix.
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    public func log(event: LogEvent) {
        var pairs = metadata
        if let extra = event.metadata { pairs.merge(extra) { $1 } }
        var line = "<\(Self.priority(event.level))>\(event.message)"
        for (key, value) in pairs.sorted(by: { $0.key < $1.key }) { line += " \(key)=\(value)" }
        line += " [\(event.source)]"
        // One journal entry per line: a newline inside a message would split it.
        output(line.replacingNewlines() + "\n")
    }

    /// True when standard error is the journal's stream: `JOURNAL_STREAM` names its device
    /// and inode (as systemd documents; a child that inherited the variable but not the stream
    /// keeps plain lines).
    public static var standardErrorIsJournal: Bool {
        guard let value = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = value.split(separator: ":")
        var status = stat()
        guard parts.count == 2, let device = UInt(parts[0]), let inode = UInt(parts[1]), fstat(2, &status) == 0 else { return false }
        return UInt(status.st_dev) == device && UInt(status.st_ino) == inode
    }

    @Sendable public static func writeToStandardError(_ line: String) {
        let bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            if n <= 0 { if errno == EINTR { continue } else { return } }
            offset += n
        }
    }
}

extension String {
    fileprivate func replacingNewlines() -> String {
        guard contains("\n") || contains("\r") else { return self }
        var result = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
