import Glibc
import OrientationCore

/// Writes an orientationd log (docs/LOG-FORMAT.md) to a file, standard output, or memory: v1,
/// v2 when it has `light` or `proximity` columns, v3 when it has a convertible's `base_*` or
/// `lid` columns (so a log without them stays readable by every earlier reader).
///
/// Output: the magic line, one `# key: value` line per metadata entry (in order), the header
/// `time,accel_x,accel_y,accel_z` (plus `,gyro_x,gyro_y,gyro_z` when `includesGyroscope`), then
/// one row per sample: time with 6 decimals, acceleration and angular rate with 5, fixed point,
/// rounded half away from zero; a value rounding to zero prints without sign; non-finite
/// acceleration or gyro values print as `nan`, `inf`, `-inf`. A sample without angular rate gets
/// empty gyro cells; a sample's angular rate is dropped when the log has no gyro columns.
///
/// Output is buffered (64 KiB) and written with write(2), retrying on EINTR and partial writes.
/// Call ``finish()`` to flush, close and learn about errors; a writer dropped unfinished flushes
/// what it can and closes silently.
public struct SensorLogWriter: ~Copyable {
    private enum Sink {
        case file(fd: Int32, closes: Bool)
        case memory
    }

    private static let flushThreshold = 64 * 1024

    /// The path (or `"-"`, or `"memory"`) used in errors.
    public let name: String
    /// True when the header has gyro columns.
    public let includesGyroscope: Bool
    /// The v2 columns: a sample's `light` and `proximity` (empty cells when `nil`).
    public let includesLight: Bool
    public let includesProximity: Bool
    /// The v3 columns: a record's base accelerometer and lid switch (empty cells when `nil`).
    public let includesBase: Bool
    public let includesLid: Bool
    private let sink: Sink
    private var buffer: [UInt8] = []
    private var finished = false
    private var linesWritten = 0
    private var previousTime: Double? = nil
    /// The previous row's time as printed (and as the reader will parse it).
    private var previousPrintedTime: Double? = nil
    /// Scratch for formatting one time cell.
    private var timeCell: [UInt8] = []

    /// The resolution of the `time` column: 6 decimals. Two samples closer than this may print the
    /// same time; sources that stamp samples themselves keep them further apart (SensorIIO's
    /// `ArrivalClock` and `KernelClockMapper` keep at least twice this).
    public static let timeResolution = 1e-6

    /// Creates (or truncates, mode 0644) the file at `path` (`"-"` = standard output, left open)
    /// and writes the header.
    /// - Throws: ``SensorLogError`` for an invalid metadata key or value (nothing is created
    ///   then), or if the file cannot be opened.
    public init(path: String, metadata: SensorLogMetadata, includesGyroscope: Bool, includesLight: Bool = false,
                includesProximity: Bool = false, includesBase: Bool = false, includesLid: Bool = false) throws(SensorLogError) {
        try Self.validate(metadata, name: path)
        let sink: Sink
        if path == "-" {
            sink = .file(fd: STDOUT_FILENO, closes: false)
        } else {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            if fd < 0 { throw SensorLogError(file: path, line: nil, kind: .cannotOpen(errno: errno)) }
            sink = .file(fd: fd, closes: true)
        }
        self.init(name: path, sink: sink, metadata: metadata, includesGyroscope: includesGyroscope, includesLight: includesLight,
                  includesProximity: includesProximity, includesBase: includesBase, includesLid: includesLid)
    }

    /// A writer that keeps the whole log in memory; read it with ``bytes``.
    /// - Throws: ``SensorLogError`` (file `"memory"`) for an invalid metadata key or value.
    public init(metadata: SensorLogMetadata, includesGyroscope: Bool, includesLight: Bool = false,
                includesProximity: Bool = false, includesBase: Bool = false, includesLid: Bool = false) throws(SensorLogError) {
        try Self.validate(metadata, name: "memory")
        self.init(name: "memory", sink: .memory, metadata: metadata, includesGyroscope: includesGyroscope, includesLight: includesLight,
                  includesProximity: includesProximity, includesBase: includesBase, includesLid: includesLid)
    }

    private init(name: String, sink: Sink, metadata: SensorLogMetadata, includesGyroscope: Bool, includesLight: Bool,
                 includesProximity: Bool, includesBase: Bool, includesLid: Bool) {
        self.name = name
        self.sink = sink
        self.includesGyroscope = includesGyroscope
        self.includesLight = includesLight
        self.includesProximity = includesProximity
        self.includesBase = includesBase
        self.includesLid = includesLid
        buffer.reserveCapacity(Self.flushThreshold + 256)
        let magic = includesBase || includesLid ? logMagicV3 : includesLight || includesProximity ? logMagicV2 : logMagic
        buffer.append(contentsOf: magic.utf8)
        buffer.append(0x0A)
        for entry in metadata.entries {
            buffer.append(contentsOf: "# \(entry.key): \(entry.value)\n".utf8)
        }
        buffer.append(contentsOf: "time,accel_x,accel_y,accel_z".utf8)
        if includesGyroscope { buffer.append(contentsOf: ",gyro_x,gyro_y,gyro_z".utf8) }
        if includesLight { buffer.append(contentsOf: ",light".utf8) }
        if includesProximity { buffer.append(contentsOf: ",proximity".utf8) }
        if includesBase { buffer.append(contentsOf: ",base_x,base_y,base_z".utf8) }
        if includesLid { buffer.append(contentsOf: ",lid".utf8) }
        buffer.append(0x0A)
        linesWritten = 2 + metadata.entries.count
    }

    deinit {
        if !finished, case .file(let fd, let closes) = sink {
            _ = Self.writeAll(fd, buffer)
            if closes { close(fd) }
        }
    }

    private static func validate(_ metadata: SensorLogMetadata, name: String) throws(SensorLogError) {
        for entry in metadata.entries {
            if !SensorLogMetadata.isValidKey(entry.key) {
                throw SensorLogError(file: name, line: nil, kind: .invalidMetadataKey(SensorLogError.quote(entry.key.utf8)))
            }
            if !SensorLogMetadata.isValidValue(entry.value) {
                throw SensorLogError(file: name, line: nil, kind: .invalidMetadataValue(key: entry.key))
            }
        }
    }

    /// Everything written so far, header included (in-memory writers; file writers return only
    /// what is still buffered).
    public var bytes: [UInt8] { buffer }

    /// Appends one row.
    /// - Throws: ``SensorLogError`` (with the line the row would have had) if `sample.time` is not
    ///   finite or not greater than the previous sample's time, or if it is greater but would print
    ///   the same 6 decimals (``SensorLogError/Kind/timeBelowResolution(time:previous:)``): nothing
    ///   is written then, so a written log always reads back; if the writer is finished, or if
    ///   flushing fails.
    public mutating func write(_ sample: Sample) throws(SensorLogError) {
        try write(SensorLogRecord(sample))
    }

    /// Appends one row of any kind (a convertible's base reading or lid-switch state, with or
    /// without the display's reading); the cells of what the record lacks are empty, and what the
    /// log has no column for is dropped (as a sample's angular rate without gyro columns).
    /// - Throws: as for a ``Sample``, and ``SensorLogError/Kind/emptyRow`` for a record that
    ///   would leave the row without any reading (no display reading, and no base reading or lid
    ///   state the log has a column for); nothing is written then.
    public mutating func write(_ sample: SensorLogRecord) throws(SensorLogError) {
        if finished { throw SensorLogError(file: name, line: nil, kind: .writerFinished) }
        let line = linesWritten + 1
        let base = includesBase ? sample.base : nil
        let lid = includesLid ? sample.lidClosed : nil
        if sample.acceleration == nil && base == nil && lid == nil {
            throw SensorLogError(file: name, line: line, kind: .emptyRow)
        }
        if !sample.time.isFinite {
            let text = FixedPointFormatter.string(sample.time, decimals: 6)
            throw SensorLogError(file: name, line: line, kind: .nonFiniteTime(text: text))
        }
        if let previousTime, !(sample.time > previousTime) {
            throw SensorLogError(file: name, line: line, kind: .timeNotIncreasing(time: sample.time, previous: previousTime))
        }
        // Compare what the reader will read: times less than 1 µs apart print equal (issue 22,
        // item 13: a recording once held two equal times after a starved reader's burst).
        timeCell.removeAll(keepingCapacity: true)
        FixedPointFormatter.append(sample.time, decimals: 6, to: &timeCell)
        let printed = DecimalParser.parse(timeCell) ?? sample.time
        if let previousTime, let previousPrintedTime, !(printed > previousPrintedTime) {
            throw SensorLogError(file: name, line: line, kind: .timeBelowResolution(time: sample.time, previous: previousTime))
        }
        previousTime = sample.time
        previousPrintedTime = printed
        linesWritten = line
        buffer.append(contentsOf: timeCell)
        guard let acceleration = sample.acceleration else {
            // Another sensor's row: the display's cells empty.
            buffer.append(contentsOf: ",,,".utf8)
            if includesGyroscope { buffer.append(contentsOf: ",,,".utf8) }
            if includesLight { buffer.append(UInt8(ascii: ",")) }
            if includesProximity { buffer.append(UInt8(ascii: ",")) }
            appendConvertibleCells(base: base, lid: lid)
            if buffer.count >= Self.flushThreshold { try flush() }
            return
        }
        for v in [acceleration.x, acceleration.y, acceleration.z] {
            buffer.append(UInt8(ascii: ","))
            FixedPointFormatter.append(v, decimals: 5, to: &buffer)
        }
        if includesGyroscope {
            if let rate = sample.angularRate {
                for v in [rate.x, rate.y, rate.z] {
                    buffer.append(UInt8(ascii: ","))
                    FixedPointFormatter.append(v, decimals: 5, to: &buffer)
                }
            } else {
                buffer.append(contentsOf: ",,,".utf8)
            }
        }
        // Light and proximity: 3 decimals (lux, raw levels), empty without a new reading.
        for (included, value) in [(includesLight, sample.light), (includesProximity, sample.proximity)] where included {
            buffer.append(UInt8(ascii: ","))
            if let value { FixedPointFormatter.append(value, decimals: 3, to: &buffer) }
        }
        appendConvertibleCells(base: base, lid: lid)
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    /// The v3 cells (base with 5 decimals, lid as 0 or 1) and the line's end.
    private mutating func appendConvertibleCells(base: Vector3?, lid: Bool?) {
        if includesBase {
            if let base {
                for v in [base.x, base.y, base.z] {
                    buffer.append(UInt8(ascii: ","))
                    FixedPointFormatter.append(v, decimals: 5, to: &buffer)
                }
            } else {
                buffer.append(contentsOf: ",,,".utf8)
            }
        }
        if includesLid {
            buffer.append(UInt8(ascii: ","))
            if let lid { buffer.append(lid ? UInt8(ascii: "1") : UInt8(ascii: "0")) }
        }
        buffer.append(0x0A)
    }

    /// Writes buffered output now (no-op for in-memory writers); whole lines only, since
    /// ``write(_:)`` buffers whole lines. A long recording calls it now and then, so that what it
    /// has recorded is on disk (and visible to `tail -f`) before the 64 KiB buffer fills.
    /// - Throws: ``SensorLogError`` if the write fails, or ``SensorLogError/Kind/writerFinished``.
    public mutating func flush() throws(SensorLogError) {
        if finished { throw SensorLogError(file: name, line: nil, kind: .writerFinished) }
        guard case .file(let fd, _) = sink else { return }
        if let code = Self.writeAll(fd, buffer) {
            throw SensorLogError(file: name, line: nil, kind: .writeFailed(errno: code))
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes the file (standard output is flushed, not closed). Later calls to
    /// ``write(_:)`` or ``finish()`` throw ``SensorLogError/Kind/writerFinished``.
    /// - Throws: ``SensorLogError`` if a write or close fails.
    public mutating func finish() throws(SensorLogError) {
        if finished { throw SensorLogError(file: name, line: nil, kind: .writerFinished) }
        finished = true
        guard case .file(let fd, let closes) = sink else { return }
        let writeError = Self.writeAll(fd, buffer)
        buffer.removeAll()
        let closeError: Int32? = closes && close(fd) != 0 ? errno : nil
        if let code = writeError ?? closeError {
            throw SensorLogError(file: name, line: nil, kind: .writeFailed(errno: code))
        }
    }

    /// Writes all of `bytes`; returns errno on failure.
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { raw -> Int32? in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    return n < 0 ? errno : EIO
                }
            }
            return nil
        }
    }
}
