import OrientationCore
import SensorIIO
import Testing

@Suite struct SensorChoiceTests {
    static func sensor(_ index: Int, _ kind: SensorDescription.Kind, location: SensorDescription.Location = .unknown,
                       buffered: Bool = true, name: String = "accel_3d", properties: [String: String] = [:]) -> SensorDescription {
        SensorDescription(id: "iio:device\(index)", name: name, sysfsPath: "/sys/devices/x/iio:device\(index)",
                          deviceNode: buffered ? "/dev/iio:device\(index)" : nil, kind: kind, location: location,
                          locationSource: location == .unknown ? "default" : "udev ACCEL_LOCATION=\(location.rawValue)",
                          label: nil, properties: properties, mountMatrixCandidates: [], hasBuffer: buffered, channels: [])
    }

    struct Row: Sendable, CustomStringConvertible {
        let name: String
        let sensors: [SensorDescription]
        let selector: String?
        let accelerometer: String?
        let gyroscope: String?
        var description: String { name }
    }

    static let rows: [Row] = [
        Row(name: "a single accelerometer", sensors: [sensor(0, .accelerometer)], selector: nil, accelerometer: "iio:device0", gyroscope: nil),
        Row(name: "a base accelerometer is never chosen", sensors: [sensor(0, .accelerometer, location: .base)], selector: nil,
            accelerometer: nil, gyroscope: nil),
        Row(name: "display beats base on a 2-in-1", sensors: [sensor(0, .accelerometer, location: .base), sensor(1, .accelerometer, location: .display)],
            selector: nil, accelerometer: "iio:device1", gyroscope: nil),
        Row(name: "buffered beats polled", sensors: [sensor(0, .accelerometer, buffered: false), sensor(1, .accelerometer)],
            selector: nil, accelerometer: "iio:device1", gyroscope: nil),
        Row(name: "explicit display beats buffered unknown", sensors: [sensor(0, .accelerometer), sensor(1, .accelerometer, location: .display, buffered: false)],
            selector: nil, accelerometer: "iio:device1", gyroscope: nil),
        Row(name: "a gyroscope is merged", sensors: [sensor(0, .accelerometer), sensor(1, .gyroscope)], selector: nil,
            accelerometer: "iio:device0", gyroscope: "iio:device1"),
        Row(name: "ids order numerically", sensors: [sensor(10, .accelerometer), sensor(9, .accelerometer)], selector: nil,
            accelerometer: "iio:device9", gyroscope: nil),
        Row(name: "a configured name wins", sensors: [sensor(0, .accelerometer, location: .display), sensor(1, .accelerometer, name: "bmc150_accel")],
            selector: "bmc150_accel", accelerometer: "iio:device1", gyroscope: nil),
        Row(name: "a configured udev property wins", sensors: [sensor(0, .accelerometer), sensor(1, .accelerometer, properties: ["ID_PATH": "i2c-x"])],
            selector: "ID_PATH=i2c-x", accelerometer: "iio:device1", gyroscope: nil),
        // Issue 27: a selector that matches no accelerometer chooses none: reading another
        // sensor than the one named would be a silent wrong answer (it used to fall back).
        Row(name: "a selector matching nothing chooses none", sensors: [sensor(0, .accelerometer)], selector: "nope",
            accelerometer: nil, gyroscope: nil),
        Row(name: "a selector matching a gyroscope chooses none", sensors: [sensor(0, .accelerometer), sensor(1, .gyroscope)], selector: "iio:device1",
            accelerometer: nil, gyroscope: nil),
    ]

    @Test(arguments: rows)
    func chooses(_ row: Row) {
        let choice = SensorChoice.choose(from: row.sensors, selector: row.selector)
        #expect(choice.accelerometer?.id == row.accelerometer)
        #expect(choice.gyroscope?.id == row.gyroscope)
        #expect(row.sensors.allSatisfy { choice.reasons[$0.id] != nil }, "every device gets a reason")
        if row.selector == "nope" {
            #expect(choice.warnings == ["--sensor nope matches no sensor; none is used until one that matches appears (orientationd --list-sensors lists them)"])
        }
    }

    @Test func mountMatrixSelectionFallsThroughInvalidSources() {
        let selection = MountMatrix.select(from: [
            .init(source: "config", text: nil),
            .init(source: "udev ACCEL_MOUNT_MATRIX", text: "0,1,0;-1,0,0;-1,0,0"),
            .init(source: "sysfs mount_matrix", text: "0, 1, 0; 1, 0, 0; 0, 0, 1"),
        ])
        #expect(selection.source == "sysfs mount_matrix")
        #expect(selection.rejected.map(\.source) == ["udev ACCEL_MOUNT_MATRIX"])
        #expect(MountMatrix.select(from: []).source == "identity")
    }
}
