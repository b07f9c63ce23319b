import Glibc
import OrientationCore

/// Streams ``Sample``s (or whole rows, ``SensorLogRecord``) out of a v1, v2 or v3 orientationd
/// log (docs/LOG-FORMAT.md; v2 adds the optional `light` and `proximity` columns, v3 a
/// convertible's `base_x`, `base_y`, `base_z` and `lid`).
///
/// The magic line, metadata and column header are read when the reader is created, so problems
/// with them are thrown by the initialiser. Samples are then produced one at a time by ``next()``;
/// the file is read in 256 KiB chunks and never held in memory whole.
///
/// Contract:
/// - Every data line yields either a record (``nextRecord()``; ``next()`` passes over the rows
///   without a display reading) or a ``SensorLogError`` naming the file and line; no malformed
///   line is skipped silently. Blank lines and `#` comment lines are skipped.
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
    /// True when the header has the `base_x`, `base_y`, `base_z` columns: a convertible's base
    /// accelerometer (v3; rows may leave them empty).
    public let hasBase: Bool
    /// True when the header has the `lid` column: a convertible's lid switch (v3).
    public let hasLid: Bool
    /// A row may leave the `accel_*` cells empty (it carries another sensor's reading): in a log
    /// with a base or lid column.
    private let accelMayBeEmpty: Bool
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
        try self.init(source: try LineSource(path: path, chunkSize: chunkSize, maxLineLength: maxLineLength))
    }

    /// Reads a log held in memory; `name` stands for the file name in errors.
    /// - Throws: ``SensorLogError`` if the magic line, metadata or column header is invalid.
    public init(bytes: [UInt8], name: String) throws(SensorLogError) {
        try self.init(source: LineSource(bytes: bytes, name: name))
    }

    /// Reads the header from `source` and keeps it for the rows.
    private init(source: consuming LineSource) throws(SensorLogError) {
        var source = source
        let header = try Self.readHeader(&source)
        // Every stored property from locals, none read back from `self` before `source` is moved
        // in: a release build (Swift 6.3) freed the noncopyable LineSource's buffer twice when
        // the initialiser read `self.hasBase` before the move (`free(): invalid pointer` at the
        // first replay; the debug build and the tests never showed it).
        let hasBase = header.roles.contains(where: \.isBase)
        let hasLid = header.roles.contains(.lid)
        self.metadata = header.metadata
        self.roles = header.roles
        self.hasGyroscope = header.roles.contains(where: \.isGyro)
        self.hasBase = hasBase
        self.hasLid = hasLid
        self.accelMayBeEmpty = hasBase || hasLid
        self.source = source
    }

    /// The display accelerometer's next sample, or `nil` at the end of the file.
    ///
    /// In a single-sensor log that is every row. In a convertible's log (v3 with `base_*` or
    /// `lid` columns) a row that carries only the base's reading or a lid-switch state has no
    /// display sample and is passed over here: the orientation detector reads the display alone.
    /// Such rows are still checked (a malformed one is an error); ``nextRecord()`` yields them.
    /// - Throws: ``SensorLogError`` for a malformed data line (that line is then skipped by the
    ///   next call) or a read failure.
    public mutating func next() throws(SensorLogError) -> Sample? {
        while let record = try nextRecord() {
            if let sample = record.sample { return sample }
        }
        return nil
    }

    /// The next row, whatever it carries, or `nil` at the end of the file (every row of a
    /// single-sensor log carries a display sample).
    /// - Throws: ``SensorLogError`` for a malformed data line (that line is then skipped by the
    ///   next call) or a read failure.
    public mutating func nextRecord() throws(SensorLogError) -> SensorLogRecord? {
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

    private mutating func parseDataLine(_ p: UnsafePointer<UInt8>, _ n: Int) throws(SensorLogError) -> SensorLogRecord {
        // time, accel x y z, gyro x y z, base x y z
        var values: (Double, Double, Double, Double, Double, Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let columnCount = roles.count
        var cell = 0
        var accelFilled = 0
        var gyroFilled = 0
        var baseFilled = 0
        var light: Double? = nil
        var proximity: Double? = nil
        var lid: Bool? = nil
        /// The first filled cell that belongs to the display's reading beside the acceleration.
        var displayCompanion: ColumnRole? = nil
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
                var cellEnd = i
                while cellEnd > cellStart && Self.isBlank(p[cellEnd - 1]) { cellEnd -= 1 }
                let text = { SensorLogError.quote(UnsafeBufferPointer(start: p + cellStart, count: cellEnd - cellStart)) }
                if role == .lid {
                    // 0 or 1 exactly (as numbers: `1.0` is 1); nothing else is a switch state.
                    if filled {
                        if !bad && value == 0 { lid = false } else if !bad && value == 1 { lid = true } else {
                            firstError = .notALidState(text: text())
                        }
                    }
                } else if bad {
                    let special = DecimalParser.parseSpecial(p, cellStart, cellEnd)
                    if let special, role != .time {
                        value = special
                    } else if special != nil {
                        firstError = .nonFiniteTime(text: text())
                    } else {
                        firstError = .notANumber(column: role.name, text: text())
                    }
                } else if !filled && !role.isOptional && !(role.isAccel && accelMayBeEmpty) {
                    firstError = .emptyCell(column: role.name)
                } else if role == .time && !value.isFinite {
                    firstError = .nonFiniteTime(text: SensorLogError.quote(
                        UnsafeBufferPointer(start: p + cellStart, count: i - cellStart)).trimmingBlanks())
                }
                if filled {
                    if role.isAccel { accelFilled += 1 }
                    if role.isGyro { gyroFilled += 1 }
                    if role.isBase { baseFilled += 1 }
                    if displayCompanion == nil && (role.isGyro || role == .light || role == .proximity) { displayCompanion = role }
                }
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
                case .baseX: values.7 = value
                case .baseY: values.8 = value
                case .baseZ: values.9 = value
                case .lid: break
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
        if accelFilled != 0 && accelFilled != 3 { throw error(.partialAccelCells(found: accelFilled)) }
        if baseFilled != 0 && baseFilled != 3 { throw error(.partialBaseCells(found: baseFilled)) }
        if accelFilled == 0 {
            if let displayCompanion { throw error(.cellWithoutAccel(column: displayCompanion.name)) }
            if baseFilled == 0 && lid == nil { throw error(.emptyRow) }
        }
        let time = values.0
        if let previousTime, !(time > previousTime) {
            throw error(.timeNotIncreasing(time: time, previous: previousTime))
        }
        previousTime = time
        return SensorLogRecord(time: time, acceleration: accelFilled == 3 ? Vector3(values.1, values.2, values.3) : nil,
                               angularRate: angularRate, light: light, proximity: proximity,
                               base: baseFilled == 3 ? Vector3(values.7, values.8, values.9) : nil, lidClosed: lid)
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
        let version: Int
        switch magic {
        case Array(logMagic.utf8): version = 1
        case Array(logMagicV2.utf8): version = 2
        case Array(logMagicV3.utf8): version = 3
        default:
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
            let roles = try parseColumns(text, line: source.lineNumber, file: source.name, version: version)
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

    private static func parseColumns(_ text: String, line: Int, file: String, version: Int) throws(SensorLogError) -> [ColumnRole] {
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
            if role.version > version { throw fail(.columnNeedsVersion(name, version: role.version)) }
            roles.append(role)
        }
        for role in [ColumnRole.time, .accelX, .accelY, .accelZ] where !roles.contains(role) {
            throw fail(.missingColumn(role.name))
        }
        let gyroCount = roles.filter(\.isGyro).count
        if gyroCount != 0 && gyroCount != 3 { throw fail(.partialGyroColumns(found: gyroCount)) }
        let baseCount = roles.filter(\.isBase).count
        if baseCount != 0 && baseCount != 3 { throw fail(.partialBaseColumns(found: baseCount)) }
        return roles
    }
}
