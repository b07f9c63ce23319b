import OrientationCore
@testable import SensorLog
import Testing

/// Log v3 (issue 30): a convertible's base accelerometer (`base_x`, `base_y`, `base_z`) and lid
/// switch (`lid`), each row carrying whichever sensor was read at its time; v1 and v2 logs read
/// as before, and a log without those columns is still written as v1 or v2.
@Suite struct LogVersion3Tests {
    static let header3 = "# orientationd-log v3\ntime,accel_x,accel_y,accel_z,base_x,base_y,base_z,lid\n"

    /// The two sensors at their own instants, a lid state on a row of its own and one sharing a
    /// display row, a non-finite base glitch kept as it was.
    static let records = [
        SensorLogRecord(time: 0, acceleration: Vector3(0, 0, 9.81), lidClosed: true),
        SensorLogRecord(time: 0.01, base: Vector3(0, 0, 9.8)),
        SensorLogRecord(time: 0.02, acceleration: Vector3(0, -9.2, -3.4)),
        SensorLogRecord(time: 0.025, lidClosed: false),
        SensorLogRecord(time: 0.03, base: Vector3(-0.5, .nan, 9.7)),
        SensorLogRecord(time: 0.04, acceleration: Vector3(0.1, -9.2, -3.3), base: Vector3(0, 0.1, 9.8)),
    ]

    @Test func baseAndLidRoundTripInAV3Log() throws {
        var metadata = SensorLogMetadata()
        metadata.append(key: "base-mount-matrix", value: "0, 1, 0; 1, 0, 0; 0, 0, -1")
        var writer = try SensorLogWriter(metadata: metadata, includesGyroscope: false, includesBase: true, includesLid: true)
        for record in Self.records { try writer.write(record) }
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text == """
            # orientationd-log v3
            # base-mount-matrix: 0, 1, 0; 1, 0, 0; 0, 0, -1
            time,accel_x,accel_y,accel_z,base_x,base_y,base_z,lid
            0.000000,0.00000,0.00000,9.81000,,,,1
            0.010000,,,,0.00000,0.00000,9.80000,
            0.020000,0.00000,-9.20000,-3.40000,,,,
            0.025000,,,,,,,0
            0.030000,,,,-0.50000,nan,9.70000,
            0.040000,0.10000,-9.20000,-3.30000,0.00000,0.10000,9.80000,

            """)
        var reader = try SensorLogReader(bytes: writer.bytes, name: "v3.log")
        #expect(reader.hasBase && reader.hasLid && !reader.hasGyroscope)
        #expect(reader.metadata["base-mount-matrix"] == "0, 1, 0; 1, 0, 0; 0, 0, -1")
        var read: [SensorLogRecord] = []
        while let record = try reader.nextRecord() { read.append(record) }
        #expect(read.count == Self.records.count)
        for (got, want) in zip(read, Self.records) {
            #expect(got.time == want.time && got.acceleration == want.acceleration && got.lidClosed == want.lidClosed)
            #expect(got.base?.x == want.base?.x && got.base?.z == want.base?.z && (got.base?.y.isNaN ?? false) == (want.base?.y.isNaN ?? false))
        }
    }

    /// `next()` is the display's stream: the orientation detector (and `orientationd --replay`)
    /// reads a convertible's log as a single-sensor one.
    @Test func nextPassesOverRowsWithoutADisplayReading() throws {
        var writer = try SensorLogWriter(metadata: SensorLogMetadata(), includesGyroscope: false, includesBase: true, includesLid: true)
        for record in Self.records { try writer.write(record) }
        var reader = try SensorLogReader(bytes: writer.bytes, name: "v3.log")
        #expect(try reader.readAll().map(\.time) == [0, 0.02, 0.04])
    }

    /// Gyroscope and light ride with the display's reading, before the v3 columns.
    @Test func everyColumnTogether() throws {
        var writer = try SensorLogWriter(metadata: SensorLogMetadata(), includesGyroscope: true, includesLight: true, includesBase: true)
        try writer.write(SensorLogRecord(time: 1, acceleration: Vector3(0, -9.8, 0), angularRate: Vector3(0.1, 0, 0), light: 40))
        try writer.write(SensorLogRecord(time: 1.5, base: Vector3(0, 0, 9.8), lidClosed: true))  // no lid column: dropped
        #expect(String(decoding: writer.bytes, as: UTF8.self) == """
            # orientationd-log v3
            time,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z,light,base_x,base_y,base_z
            1.000000,0.00000,-9.80000,0.00000,0.10000,0.00000,0.00000,40.000,,,
            1.500000,,,,,,,,0.00000,0.00000,9.80000

            """)
        var reader = try SensorLogReader(bytes: writer.bytes, name: "v3.log")
        #expect(try reader.nextRecord() == SensorLogRecord(time: 1, acceleration: Vector3(0, -9.8, 0), angularRate: Vector3(0.1, 0, 0), light: 40))
        #expect(try reader.nextRecord() == SensorLogRecord(time: 1.5, base: Vector3(0, 0, 9.8)))
        #expect(try reader.nextRecord() == nil)
    }

    @Test func aLogWithoutBaseOrLidStaysV1() throws {
        var writer = try SensorLogWriter(metadata: SensorLogMetadata(), includesGyroscope: false)
        try writer.write(SensorLogRecord(time: 0, acceleration: Vector3(0, -9.81, 0), base: Vector3(0, 0, 9.8)))
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "# orientationd-log v1\ntime,accel_x,accel_y,accel_z\n0.000000,0.00000,-9.81000,0.00000\n")
    }

    /// A row with nothing to write is refused, and nothing is written.
    @Test func theWriterRefusesAnEmptyRow() throws {
        var writer = try SensorLogWriter(metadata: SensorLogMetadata(), includesGyroscope: false, includesBase: true)
        #expect {
            try writer.write(SensorLogRecord(time: 0, lidClosed: true))  // no lid column
        } throws: { error in
            "\(error)" == "memory:3: the row carries no reading: accel_*, base_* and lid are all empty"
        }
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "# orientationd-log v3\ntime,accel_x,accel_y,accel_z,base_x,base_y,base_z\n")
    }

    /// (log text, the first error, named by file and line)
    static let refused: [(String, String)] = [
        ("# orientationd-log v2\ntime,accel_x,accel_y,accel_z,base_x,base_y,base_z\n",
         "x.log:2: column \"base_x\" needs a v3 log (first line \"# orientationd-log v3\")"),
        ("# orientationd-log v1\ntime,accel_x,accel_y,accel_z,lid\n", "x.log:2: column \"lid\" needs a v3 log (first line \"# orientationd-log v3\")"),
        ("# orientationd-log v3\ntime,accel_x,accel_y,accel_z,base_x,base_z\n", "x.log:2: base columns must be all three or none, found 2 of 3"),
        (header3 + "0,0,0,9.8,,,,1\n0.01,,,,0,abc,9.8,\n", "x.log:4: column base_y: \"abc\" is not a number"),
        (header3 + "0.01,,,,0,,9.8,\n", "x.log:3: base cells must be all empty or all filled, found 2 of 3"),
        (header3 + "0.01,0,,,0,0,9.8,\n", "x.log:3: accel cells must be all empty or all filled, found 1 of 3"),
        (header3 + "0.01,0,0,9.8,,,,2\n", "x.log:3: column lid: \"2\" is not 0 (open) or 1 (shut)"),
        (header3 + "0.01,0,0,9.8,,,,nan\n", "x.log:3: column lid: \"nan\" is not 0 (open) or 1 (shut)"),
        (header3 + "0.01,0,0,9.8,,,,shut\n", "x.log:3: column lid: \"shut\" is not 0 (open) or 1 (shut)"),
        (header3 + "0.01,,,,,,,\n", "x.log:3: the row carries no reading: accel_*, base_* and lid are all empty"),
        ("# orientationd-log v3\ntime,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z,base_x,base_y,base_z\n0.01,,,,0,0,0,0,0,9.8\n",
         "x.log:3: column gyro_x: filled on a row without an accel reading (such a row carries only base_* and lid)"),
        ("# orientationd-log v3\ntime,accel_x,accel_y,accel_z,light,lid\n0.01,,,,5,1\n",
         "x.log:3: column light: filled on a row without an accel reading (such a row carries only base_* and lid)"),
        // Without a base or lid column every row is the display's: its cells stay required.
        ("# orientationd-log v3\ntime,accel_x,accel_y,accel_z\n0.01,,,\n", "x.log:3: column accel_x: empty cell"),
        (header3 + "0.02,0,0,9.8,,,,\n0.01,,,,0,0,9.8,\n", "x.log:4: time 0.01 does not increase (previous sample at 0.02)"),
        (header3 + "0.02,0,0,9.8,,,\n", "x.log:3: expected 8 cells, found 7"),
    ]

    @Test(arguments: refused.indices)
    func malformedConvertibleLogsNameFileAndLine(_ index: Int) {
        let (text, message) = Self.refused[index]
        #expect {
            var reader = try SensorLogReader(bytes: Array(text.utf8), name: "x.log")
            while try reader.nextRecord() != nil {}
        } throws: { error in
            "\(error)" == message
        }
    }

    /// After a bad row the reader goes on with the next, as for every other data-line error.
    @Test func readingContinuesAfterABadBaseRow() throws {
        var reader = try SensorLogReader(bytes: Array((Self.header3 + "0,0,0,9.8,,,,\n0.01,,,,0,x,9.8,\n0.02,,,,0,0,9.8,\n").utf8), name: "x.log")
        #expect(try reader.nextRecord()?.time == 0)
        #expect(throws: SensorLogError.self) { try reader.nextRecord() }
        #expect(try reader.nextRecord() == SensorLogRecord(time: 0.02, base: Vector3(0, 0, 9.8)))
    }
}
