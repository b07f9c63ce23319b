import AmbientSensorCore
import OrientationCore
import SensorIIO
import Testing

/// The backend table (issue 29, item 1): every row distinct, every family found by some row,
/// and every sensor shape read by exactly one row, the one that finds it.
@Suite struct SensorBackendTableTests {
    @Test func rowsHaveDistinctNamesAndCoverEveryFamily() {
        let names = SensorBackends.all.map { $0.name }
        #expect(Set(names).count == names.count, "\(names)")
        for family in SensorFamily.allCases {
            #expect(SensorBackends.all.contains { $0.families.contains(family) }, "no row finds \(family) sensors")
        }
    }

    /// One auxiliary sensor of every shape, marked by the row discovery would mark it with.
    static let auxiliaryShapes: [(AuxiliarySensorDescription.Shape, AuxiliarySensorKind, String)] = [
        (.polled(value: "in_illuminance_raw", scale: "in_illuminance_scale", offset: nil), .light, "iio"),
        (.buffered(channel: "intensity_both"), .light, "iio"),
        (.polled(value: "in_rot_from_north_magnetic_tilt_comp_raw", scale: "in_rot_scale", offset: nil), .compass, "iio"),
        (.hwmonLight, .light, "hwmon-light"),
        (.evdevSwitch(node: "/dev/input/event3"), .proximity, "input-switch"),
    ]

    @Test(arguments: auxiliaryShapes.indices)
    func exactlyTheRowThatFindsAnAuxiliarySensorReadsIt(_ index: Int) {
        let (shape, kind, backend) = Self.auxiliaryShapes[index]
        let sensor = AuxiliarySensorDescription(kind: kind, id: "dev\(index)", name: "dev", sysfsPath: "/sys/nonexistent/dev\(index)",
                                                shape: shape, backend: backend)
        let readers = SensorBackends.all.filter { $0.auxiliaryRead(sensor) != nil }.map { $0.name }
        #expect(readers == [backend], "\(shape)")
        #expect(SensorBackends.auxiliaryRead(sensor) != nil)
        // Marked with another row's name, nobody reads it: the table never guesses by shape.
        var stray = sensor
        stray.backend = "no-such-backend"
        #expect(SensorBackends.auxiliaryRead(stray) == nil)
    }

    /// Discovery marks what it finds (a hwmon light is the hwmon row's, an IIO one the IIO row's).
    @Test func classificationMarksTheRowThatFoundTheSensor() {
        let iio = AuxiliarySensorDescription.classify(id: "iio:device1", name: "als", sysfsPath: "/sys/x", subsystem: "iio",
                                                      attributes: ["in_illuminance_input"], properties: [:], value: { _ in nil })
        let hwmon = AuxiliarySensorDescription.classify(id: "hwmon0", name: "applesmc", sysfsPath: "/sys/y", subsystem: "hwmon",
                                                        attributes: ["light"], properties: [:], value: { _ in nil })
        #expect(iio.map(\.backend) == [IIOBackend.name])
        #expect(hwmon.map(\.backend) == [HwmonLightBackend.name])
    }

    @Test(arguments: [(SensorDescription.Bus.iio, "iio"), (.input, "input-accelerometer")])
    func everyMotionSensorHasARow(_ bus: SensorDescription.Bus, _ backend: String) {
        let sensor = SensorDescription(id: "x", name: "x", sysfsPath: "/sys/x", deviceNode: "/dev/x", kind: .accelerometer,
                                       location: .display, locationSource: "default", label: nil, properties: [:],
                                       mountMatrixCandidates: [], hasBuffer: false, channels: [], bus: bus)
        #expect(sensor.backend == backend)
        #expect(SensorBackends.backend(of: sensor)?.name == backend)
        #expect(SensorBackends.backend(of: sensor)?.families.contains(.motion) == true)
    }

    /// Polled reads go through the reader's clock; a buffer and an input device wake the thread.
    @Test func polledShapesAreReadOnTheClockAndEventShapesWakeTheThread() {
        for (index, (shape, kind, backend)) in Self.auxiliaryShapes.enumerated() {
            let sensor = AuxiliarySensorDescription(kind: kind, id: "dev\(index)", name: "dev", sysfsPath: "/sys/nonexistent", shape: shape,
                                                    backend: backend)
            let onClock: Bool
            switch SensorBackends.auxiliaryRead(sensor) {
            case .everyPeriod?: onClock = true
            case .wakesItself?: onClock = false
            case nil: Issue.record("no reader for \(shape)"); continue
            }
            let expected = switch shape {
            case .polled, .hwmonLight: true
            case .buffered, .evdevSwitch: false
            }
            #expect(onClock == expected, "\(shape)")
        }
    }
}
