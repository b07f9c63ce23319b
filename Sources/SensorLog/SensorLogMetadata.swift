/// The `# key: value` lines of a log, between the magic line and the column header, in file order.
///
/// Keys used by orientationd: `device`, `mount-matrix`, `sample-rate`, `source`, `licence`
/// (docs/LOG-FORMAT.md). Duplicate keys are kept; lookups return the first. Values are stored
/// trimmed of surrounding spaces and tabs. Validation happens when a ``SensorLogWriter`` writes
/// them: keys must match `[a-z0-9][a-z0-9-]*` and values must not contain `\n` or `\r`.
public struct SensorLogMetadata: Sendable, Equatable, CustomStringConvertible {
    /// All entries, in file (or insertion) order.
    public var entries: [(key: String, value: String)]

    /// Creates metadata with the given entries, kept in this order.
    public init(_ entries: [(key: String, value: String)] = []) {
        self.entries = entries
    }

    /// Appends an entry (even if `key` is already present).
    public mutating func append(key: String, value: String) {
        entries.append((key: key, value: value))
    }

    /// The value of the first entry named `key`, or `nil`. Setting replaces the first entry's value
    /// (or appends a new entry); setting `nil` removes every entry named `key`.
    public subscript(key: String) -> String? {
        get { entries.first(where: { $0.key == key })?.value }
        set {
            if let newValue {
                if let index = entries.firstIndex(where: { $0.key == key }) {
                    entries[index].value = newValue
                } else {
                    entries.append((key: key, value: newValue))
                }
            } else {
                entries.removeAll { $0.key == key }
            }
        }
    }

    /// The `device` entry: a human-readable sensor name, e.g. `accel_3d (iio:device0)`.
    public var device: String? { self["device"] }

    /// The `mount-matrix` entry, raw (e.g. `0, 1, 0; 1, 0, 0; 0, 0, 1`): the matrix that was
    /// applied to get the canonical-frame samples in the file. Parse it with OrientationCore.
    public var mountMatrix: String? { self["mount-matrix"] }

    /// The `sample-rate` entry in Hz, when it is a finite positive number; otherwise `nil`.
    public var sampleRate: Double? {
        guard let text = self["sample-rate"], let rate = Double(text), rate.isFinite, rate > 0 else {
            return nil
        }
        return rate
    }

    /// True when `key` matches `[a-z0-9][a-z0-9-]*`.
    public static func isValidKey(_ key: String) -> Bool {
        var first = true
        for byte in key.utf8 {
            let ok = (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || (!first && byte == UInt8(ascii: "-"))
            if !ok { return false }
            first = false
        }
        return !first
    }

    /// True when `value` contains no line break (`\n` or `\r`).
    public static func isValidValue(_ value: String) -> Bool {
        !value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D })
    }

    /// Entries compare equal when they have the same keys and values in the same order.
    public static func == (a: SensorLogMetadata, b: SensorLogMetadata) -> Bool {
        a.entries.count == b.entries.count
            && zip(a.entries, b.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    /// `key: value` pairs separated by `; `.
    public var description: String {
        entries.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
    }
}
