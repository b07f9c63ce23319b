import Glibc
import OrientationCore

/// Streams ``Sample``s out of a v1 or v2 orientationd log (docs/LOG-FORMAT.md; v2 adds the
/// optional `light` and `proximity` columns).
///
/// The magic line, metadata and column header are read when the reader is created, so problems
/// with them are thrown by the initialiser. Samples are then produced one at a time by ``next()``;
/// the file is read in 256 KiB chunks and never held in memory whole.
///
/// Contract:
/// - Every data line yields either a sample or a ``SensorLogError`` naming the file and line; no
///   malformed line is skipped silently. Blank lines and `#` comment lines are skipped.
/// - After an error about one data line (bad cell, wrong cell count, time not increasing, line
///   too long) that line is consumed; calling ``next()`` again continues with the following line,
///   and "previous time" stays that of the last sample returned. A read error is final: it is
///   thrown again by every later call.
/// - No byte sequence crashes the reader (invalid UTF-8, NUL bytes, missing final newline, lines
///   over 65,536 bytes).
/// - `nan`/`inf`/`infinity` (any case, optional sign) are accepted in acceleration and gyro
///   cells and returned as non-finite values; in the `time` column they are an error.
public struct SensorLogReader: ~Copyable {
    private var source: LineSource
    /// The metadata entries found between the magic line and the column header, in file order.
    public let metadata: SensorLogMetadata
    /// True when the header has the `gyro_x`, `gyro_y`, `gyro_z` columns (rows may still leave them
    /// empty; such samples have a `nil` angular rate).
    public let hasGyroscope: Bool
    /// The file name used in errors (the path, `"-"`, or the name given for in-memory data).
    public var name: String { source.name }
    /// The role of each header column, in file order.
    private let roles: [ColumnRole]
    private var previousTime: Double? = nil

    /// Opens the log at `path` (`"-"` reads standard input) and reads its header.
    /// - Throws: ``SensorLogError`` if the file cannot be opened or read, or its magic line,
    ///   metadata or column header is invalid.
    public init(path: String) throws(SensorLogError) {
        try self.init(path: path, chunkSize: LineSource.defaultChunkSize)
    }

    /// As ``init(path:)`` with a custom read size (tests use tiny chunks to split lines).
    init(path: String, chunkSize: Int, maxLineLength: Int = LineSource.defaultMaxLineLength)
        throws(SensorLogError)
    {
        var source = try LineSource(path: path, chunkSize: chunkSize, maxLineLength: maxLineLength)
        let header = try Self.readHeader(&source)
        self.metadata = header.metadata
        self.roles = header.roles
        self.hasGyroscope = header.roles.contains(where: \.isGyro)
        self.source = source
    }

    /// Reads a log held in memory; `name` stands for the file name in errors.
    /// - Throws: ``SensorLogError`` if the magic line, metadata or column header is invalid.
    public init(bytes: [UInt8], name: String) throws(SensorLogError) {
        var source = LineSource(bytes: bytes, name: name)
        let header = try Self.readHeader(&source)
        self.metadata = header.metadata
        self.roles = header.roles
        self.hasGyroscope = header.roles.contains(where: \.isGyro)
        self.source = source
    }

    /// The next sample, or `nil` at the end of the file.
    /// - Throws: ``SensorLogError`` for a malformed data line (that line is then skipped by the
    ///   next call) or a read failure.
    public mutating func next() throws(SensorLogError) -> Sample? {
        while let line = try source.nextLine() {
            guard let base = line.baseAddress else { continue }  // empty line
            let count = line.count
            var i = 0
            while i < count && (base[i] == 0x20 || base[i] == 0x09) { i += 1 }
            if i == count || base[i] == UInt8(ascii: "#") { continue }
            return try parseDataLine(base, count)
        }
        return nil
    }

    /// Reads every remaining sample.
    /// - Throws: the first ``SensorLogError`` met; samples read before it are lost.
    public mutating func readAll() throws(SensorLogError) -> [Sample] {
        var samples: [Sample] = []
        while let sample = try next() { samples.append(sample) }
        return samples
    }

    private func error(_ kind: SensorLogError.Kind) -> SensorLogError {
        SensorLogError(file: source.name, line: source.lineNumber, kind: kind)
    }

    @inline(__always)
    private static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }

    private mutating func parseDataLine(_ p: UnsafePointer<UInt8>, _ n: Int) throws(SensorLogError) -> Sample {
        var values: (Double, Double, Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0, 0, 0)
        let columnCount = roles.count
        var cell = 0
        var gyroFilled = 0
        var light: Double? = nil
        var proximity: Double? = nil
        var firstError: SensorLogError.Kind? = nil
        var i = 0
        while true {
            while i < n && Self.isBlank(p[i]) { i += 1 }
            let cellStart = i
            var value = 0.0
            var filled = false
            var bad = false
            if i < n && p[i] != UInt8(ascii: ",") {
                if let (v, next) = DecimalParser.parse(p, i, n) {
                    value = v
                    i = next
                    while i < n && Self.isBlank(p[i]) { i += 1 }
                    if i < n && p[i] != UInt8(ascii: ",") { bad = true }
                } else {
                    bad = true
                }
                filled = true
            }
            if bad {
                while i < n && p[i] != UInt8(ascii: ",") { i += 1 }
            }
            if cell < columnCount && firstError == nil {
                let role = roles[cell]
                if bad {
                    var cellEnd = i
                    while cellEnd > cellStart && Self.isBlank(p[cellEnd - 1]) { cellEnd -= 1 }
                    let special = DecimalParser.parseSpecial(p, cellStart, cellEnd)
                    let text = { SensorLogError.quote(UnsafeBufferPointer(start: p + cellStart, count: cellEnd - cellStart)) }
                    if let special, role != .time {
                        value = special
                    } else if special != nil {
                        firstError = .nonFiniteTime(text: text())
                    } else {
                        firstError = .notANumber(column: role.name, text: text())
                    }
                } else if !filled && !role.isOptional {
                    firstError = .emptyCell(column: role.name)
                } else if role == .time && !value.isFinite {
                    firstError = .nonFiniteTime(text: SensorLogError.quote(
                        UnsafeBufferPointer(start: p + cellStart, count: i - cellStart)).trimmingBlanks())
                }
                if filled && role.isGyro { gyroFilled += 1 }
                switch role {
                case .time: values.0 = value
                case .accelX: values.1 = value
                case .accelY: values.2 = value
                case .accelZ: values.3 = value
                case .gyroX: values.4 = value
                case .gyroY: values.5 = value
                case .gyroZ: values.6 = value
                case .light: if filled { light = value }
                case .proximity: if filled { proximity = value }
                }
            }
            cell += 1
            if i >= n { break }
            i += 1  // the comma
        }
        if cell != columnCount { throw error(.cellCount(expected: columnCount, found: cell)) }
        if let firstError { throw error(firstError) }
        var angularRate: Vector3? = nil
        if gyroFilled == 3 {
            angularRate = Vector3(values.4, values.5, values.6)
        } else if gyroFilled != 0 {
            throw error(.partialGyroCells(found: gyroFilled))
        }
        let time = values.0
        if let previousTime, !(time > previousTime) {
            throw error(.timeNotIncreasing(time: time, previous: previousTime))
        }
        previousTime = time
        return Sample(time: time, acceleration: Vector3(values.1, values.2, values.3), angularRate: angularRate,
                      light: light, proximity: proximity)
    }

    // MARK: Header

    private static func readHeader(_ source: inout LineSource) throws(SensorLogError)
        -> (metadata: SensorLogMetadata, roles: [ColumnRole])
    {
        func fail(_ kind: SensorLogError.Kind, line: Int?) -> SensorLogError {
            SensorLogError(file: source.name, line: line, kind: kind)
        }
        guard let first = try source.nextLine() else { throw fail(.emptyFile, line: nil) }
        var magic = Array(first)
        if magic.starts(with: [0xEF, 0xBB, 0xBF]) { magic.removeFirst(3) }  // UTF-8 BOM
        while let last = magic.last, isBlank(last) { magic.removeLast() }
        let version2 = magic == Array(logMagicV2.utf8)
        if magic != Array(logMagic.utf8) && !version2 {
            let prefix = Array("# orientationd-log ".utf8)
            if magic.starts(with: prefix) {
                let version = SensorLogError.quote(magic[prefix.count...]).trimmingBlanks()
                throw fail(.unsupportedVersion(version), line: 1)
            }
            throw fail(.notALog(found: SensorLogError.quote(magic)), line: 1)
        }
        var metadata = SensorLogMetadata()
        while let line = try source.nextLine() {
            let text = String(decoding: line, as: UTF8.self).trimmingBlanks()
            if text.isEmpty { continue }
            if text.hasPrefix("#") {
                if let entry = metadataEntry(text.dropFirst()) { metadata.append(key: entry.key, value: entry.value) }
                continue
            }
            if let c = text.utf8.first,
               (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "-")
                || c == UInt8(ascii: "+") || c == UInt8(ascii: ".")
            {
                throw fail(.dataBeforeHeader, line: source.lineNumber)
            }
            let roles = try parseColumns(text, line: source.lineNumber, file: source.name, version2: version2)
            return (metadata, roles)
        }
        throw fail(.missingHeader, line: nil)
    }

    /// `key: value` with a valid key, or nil (then the line is a plain comment).
    private static func metadataEntry(_ body: Substring) -> (key: String, value: String)? {
        guard let colon = body.firstIndex(of: ":") else { return nil }
        let key = String(body[..<colon]).trimmingBlanks()
        guard SensorLogMetadata.isValidKey(key) else { return nil }
        let value = String(body[body.index(after: colon)...]).trimmingBlanks()
        return (key, value)
    }

    private static func parseColumns(_ text: String, line: Int, file: String, version2: Bool) throws(SensorLogError) -> [ColumnRole] {
        func fail(_ kind: SensorLogError.Kind) -> SensorLogError {
            SensorLogError(file: file, line: line, kind: kind)
        }
        var roles: [ColumnRole] = []
        for rawName in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = String(rawName).trimmingBlanks()
            guard let role = ColumnRole(name: name) else {
                throw fail(.unknownColumn(SensorLogError.quote(name.utf8)))
            }
            if roles.contains(role) { throw fail(.duplicateColumn(name)) }
            if role.needsV2 && !version2 { throw fail(.columnNeedsV2(name)) }
            roles.append(role)
        }
        for role in [ColumnRole.time, .accelX, .accelY, .accelZ] where !roles.contains(role) {
            throw fail(.missingColumn(role.name))
        }
        let gyroCount = roles.filter(\.isGyro).count
        if gyroCount != 0 && gyroCount != 3 { throw fail(.partialGyroColumns(found: gyroCount)) }
        return roles
    }
}
