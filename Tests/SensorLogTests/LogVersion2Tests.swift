import OrientationCore
@testable import SensorLog
import Testing

/// Log v2 (issue 17): optional `light` and `proximity` columns; v1 logs read as before.
@Suite struct LogVersion2Tests {
    @Test func lightAndProximityRoundTripInAV2Log() throws {
        var metadata = SensorLogMetadata()
        metadata.append(key: "light-unit", value: "lux")
        var writer = try SensorLogWriter(metadata: metadata, includesGyroscope: false, includesLight: true, includesProximity: true)
        let samples = [
            Sample(time: 0, acceleration: Vector3(0, -9.81, 0), light: 312.5, proximity: 10),
            Sample(time: 0.01, acceleration: Vector3(0, -9.81, 0)),
            Sample(time: 0.02, acceleration: Vector3(0, -9.81, 0), proximity: 1200),
        ]
        for sample in samples { try writer.write(sample) }
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text == """
            # orientationd-log v2
            # light-unit: lux
            time,accel_x,accel_y,accel_z,light,proximity
            0.000000,0.00000,-9.81000,0.00000,312.500,10.000
            0.010000,0.00000,-9.81000,0.00000,,
            0.020000,0.00000,-9.81000,0.00000,,1200.000

            """)
        var reader = try SensorLogReader(bytes: writer.bytes, name: "v2.log")
        #expect(try reader.readAll() == samples)
        #expect(reader.metadata["light-unit"] == "lux")
    }

    @Test func aLogWithoutThemStaysV1() throws {
        var writer = try SensorLogWriter(metadata: SensorLogMetadata(), includesGyroscope: false, includesLight: false)
        try writer.write(Sample(time: 0, acceleration: Vector3(0, -9.81, 0), light: 5))
        #expect(String(decoding: writer.bytes, as: UTF8.self).hasPrefix("# orientationd-log v1\ntime,accel_x,accel_y,accel_z\n0.000000,0.00000,-9.81000,0.00000\n"))
    }

    static let refused: [(String, String)] = [
        ("# orientationd-log v1\ntime,accel_x,accel_y,accel_z,light\n", "v1.log:2: column \"light\" needs a v2 log (first line \"# orientationd-log v2\")"),
        // v3 exists since issue 30; v4 is the version from the future now.
        ("# orientationd-log v4\ntime,accel_x,accel_y,accel_z\n", "v1.log:1: unsupported log version \"v4\"; this reader understands v1, v2 and v3"),
        ("# orientationd-log v2\ntime,accel_x,accel_y,accel_z,light\n0,0,0,0,abc\n", "v1.log:3: column light: \"abc\" is not a number"),
    ]

    @Test(arguments: refused.indices)
    func refusesWhatIsNotV1OrV2(_ index: Int) {
        let (text, message) = Self.refused[index]
        #expect {
            var reader = try SensorLogReader(bytes: Array(text.utf8), name: "v1.log")
            _ = try reader.readAll()
        } throws: { error in
            "\(error)" == message
        }
    }

    @Test func aV2LogWithOnlyAccelerometerColumnsReads() throws {
        var reader = try SensorLogReader(bytes: Array("# orientationd-log v2\ntime,accel_x,accel_y,accel_z\n0,0,-9.8,0\n".utf8), name: "x")
        #expect(try reader.readAll() == [Sample(time: 0, acceleration: Vector3(0, -9.8, 0))])
    }
}
