import Glibc

/// A problem reading or writing an orientationd log (docs/LOG-FORMAT.md).
///
/// Every error names the file (`"-"` for standard input/output, or the name given to an in-memory
/// reader) and, when the problem belongs to one line, that line's 1-based number. `description`
/// renders `FILE:LINE: message` (or `FILE: message` when ``line`` is `nil`), a complete sentence
/// fit to print to a user as is.
public struct SensorLogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong. Quoted texts (`found`, `text`) are already sanitised: at most 40 characters,
    /// control characters and invalid UTF-8 replaced by `?`.
    public enum Kind: Sendable, Equatable {
        /// open(2) failed with this errno.
        case cannotOpen(errno: Int32)
        /// read(2) failed with this errno.
        case readFailed(errno: Int32)
        /// write(2) or close(2) failed with this errno.
        case writeFailed(errno: Int32)
        /// The file has no bytes at all.
        case emptyFile
        /// The first line is not `# orientationd-log v1` (nor any other version of that line).
        case notALog(found: String)
        /// The first line is `# orientationd-log VERSION` with a version other than `v1`, `v2`, `v3`.
        case unsupportedVersion(String)
        /// A data-looking line came before the column header.
        case dataBeforeHeader
        /// The file ended before a column header line.
        case missingHeader
        /// The header names a column this reader does not know.
        case unknownColumn(String)
        /// A log names a column that exists only from a later version on (`light`, `proximity`:
        /// v2; `base_x`, `base_y`, `base_z`, `lid`: v3).
        case columnNeedsVersion(String, version: Int)
        /// The header names a column twice.
        case duplicateColumn(String)
        /// The header lacks a required column (`time`, `accel_x`, `accel_y`, `accel_z`).
        case missingColumn(String)
        /// The header has some but not all of `gyro_x`, `gyro_y`, `gyro_z`.
        case partialGyroColumns(found: Int)
        /// The header has some but not all of `base_x`, `base_y`, `base_z`.
        case partialBaseColumns(found: Int)
        /// A data line has the wrong number of comma-separated cells.
        case cellCount(expected: Int, found: Int)
        /// A cell is neither empty, a decimal number, nor (outside `time`) nan/inf.
        case notANumber(column: String, text: String)
        /// A `time` or `accel_*` cell is empty.
        case emptyCell(column: String)
        /// Some but not all gyro cells of a row are filled.
        case partialGyroCells(found: Int)
        /// Some but not all `accel_*` cells of a row are filled (a v3 log with a base or lid
        /// column, where a row may carry another sensor's reading instead).
        case partialAccelCells(found: Int)
        /// Some but not all `base_*` cells of a row are filled.
        case partialBaseCells(found: Int)
        /// A `lid` cell is neither empty, `0` (open) nor `1` (shut).
        case notALidState(text: String)
        /// A row without a display reading (empty `accel_*` cells) fills a cell that belongs to
        /// the display's reading (`gyro_*`, `light`, `proximity`).
        case cellWithoutAccel(column: String)
        /// A row carries no reading at all: `accel_*`, `base_*` and `lid` all empty.
        case emptyRow
        /// A sample's time is not greater than the previous sample's.
        case timeNotIncreasing(time: Double, previous: Double)
        /// A sample's time is greater than the previous one's, but less than the log's resolution
        /// (1 µs, ``SensorLogWriter/timeResolution``) later: with 6 decimals both rows would print
        /// the same time, and the reader would reject the log (writer only).
        case timeBelowResolution(time: Double, previous: Double)
        /// The `time` cell is nan or infinite.
        case nonFiniteTime(text: String)
        /// A line exceeds the reader's limit (65,536 bytes).
        case lineTooLong(limit: Int)
        /// A metadata key does not match `[a-z0-9][a-z0-9-]*` (writer only).
        case invalidMetadataKey(String)
        /// A metadata value contains a line break (writer only).
        case invalidMetadataValue(key: String)
        /// `write` or `finish` called after `finish` (writer only).
        case writerFinished
    }

    /// The path (or name) of the log; `"-"` for standard input or output.
    public var file: String
    /// 1-based line number, or `nil` for problems concerning the whole file.
    public var line: Int?
    public var kind: Kind

    public init(file: String, line: Int?, kind: Kind) {
        self.file = file
        self.line = line
        self.kind = kind
    }

    /// `FILE:LINE: message`, or `FILE: message` when `line` is nil.
    public var description: String {
        if let line { return "\(file):\(line): \(message)" }
        return "\(file): \(message)"
    }

    /// The message alone, without file and line.
    public var message: String {
        switch kind {
        case .cannotOpen(let code): return "cannot open: \(Self.errnoText(code))"
        case .readFailed(let code): return "read failed: \(Self.errnoText(code))"
        case .writeFailed(let code): return "write failed: \(Self.errnoText(code))"
        case .emptyFile:
            return "not an orientationd log: the file is empty (the first line must be \"\(logMagic)\")"
        case .notALog(let found):
            // A CSV from another tool (issue 27): say which command reads it.
            let csv = found.contains(",") || found.contains(";") || found.contains("\t")
            return "not an orientationd log: the first line must be \"\(logMagic)\", found \"\(found)\""
                + (csv ? "; for a CSV from another tool, convert it first: orientationctl import --help" : "")
        case .unsupportedVersion(let version):
            return "unsupported log version \"\(version)\"; this reader understands v1, v2 and v3"
        case .dataBeforeHeader:
            return "data before the column header \"\(canonicalHeaderHint)\""
        case .missingHeader:
            return "the file ends before the column header \"\(canonicalHeaderHint)\""
        case .unknownColumn(let name):
            return "unknown column \"\(name)\" (known: \(ColumnRole.allNames.joined(separator: ", ")))"
        case .duplicateColumn(let name): return "duplicate column \"\(name)\""
        case .columnNeedsVersion(let name, let version):
            return "column \"\(name)\" needs a v\(version) log (first line \"\(logMagicPrefix)v\(version)\")"
        case .missingColumn(let name): return "missing required column \"\(name)\""
        case .partialGyroColumns(let found):
            return "gyro columns must be all three or none, found \(found) of 3"
        case .partialBaseColumns(let found):
            return "base columns must be all three or none, found \(found) of 3"
        case .cellCount(let expected, let found): return "expected \(expected) cells, found \(found)"
        case .notANumber(let column, let text): return "column \(column): \"\(text)\" is not a number"
        case .emptyCell(let column): return "column \(column): empty cell"
        case .partialGyroCells(let found):
            return "gyro cells must be all empty or all filled, found \(found) of 3"
        case .partialAccelCells(let found):
            return "accel cells must be all empty or all filled, found \(found) of 3"
        case .partialBaseCells(let found):
            return "base cells must be all empty or all filled, found \(found) of 3"
        case .notALidState(let text): return "column lid: \"\(text)\" is not 0 (open) or 1 (shut)"
        case .cellWithoutAccel(let column):
            return "column \(column): filled on a row without an accel reading (such a row carries only base_* and lid)"
        case .emptyRow: return "the row carries no reading: accel_*, base_* and lid are all empty"
        case .timeNotIncreasing(let time, let previous):
            return "time \(time) does not increase (previous sample at \(previous))"
        case .timeBelowResolution(let time, let previous):
            return "time \(time) is less than the log's 1 µs resolution after the previous sample (\(previous)): both would print as \(FixedPointFormatter.string(time, decimals: 6))"
        case .nonFiniteTime(let text): return "column time: \"\(text)\" is not a finite time"
        case .lineTooLong(let limit): return "line longer than \(limit) bytes"
        case .invalidMetadataKey(let key):
            return "invalid metadata key \"\(key)\": keys are lower-case letters, digits and \"-\", not starting with \"-\""
        case .invalidMetadataValue(let key):
            return "metadata value for \"\(key)\" contains a line break"
        case .writerFinished: return "the log writer was already finished"
        }
    }

    static func errnoText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// Renders bytes for quoting in a message: at most `limit` characters, control characters and
    /// invalid UTF-8 shown as `?`, `…` appended when truncated.
    static func quote<C: Collection>(_ bytes: C, limit: Int = 40) -> String where C.Element == UInt8 {
        var out = String.UnicodeScalarView()
        var count = 0
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            if count == limit {
                out.append("…")
                break
            }
            let v = scalar.value
            if v < 0x20 || v == 0x7F || (v >= 0x80 && v < 0xA0) || v == 0xFFFD {
                out.append("?")
            } else {
                out.append(scalar)
            }
            count += 1
        }
        return String(out)
    }
}

/// The exact first line of a v1 log.
let logMagic = "# orientationd-log v1"
/// The magic line of a log with light or proximity columns.
let logMagicV2 = "# orientationd-log v2"
/// The magic line of a log with a convertible's base accelerometer or lid switch (issue 30).
let logMagicV3 = "# orientationd-log v3"
/// The magic line without its version.
let logMagicPrefix = "# orientationd-log "
let canonicalHeaderHint = "time,accel_x,accel_y,accel_z,..."
