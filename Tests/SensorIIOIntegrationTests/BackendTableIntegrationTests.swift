import OrientationCore
import SensorIIO
import Testing

/// The backend table (issue 29, item 1) over real libudev: one testbed with a sensor of every
/// row, each found by its row and marked with it, and each family asking only its rows.
extension SensorIIOIntegrationTests {
    @Test func everyRowFindsItsOwnSensorsAndMarksThem() throws {
        let testbed = Testbed()
        let accel = FakeIIODevice(index: 0, name: "da280", format: "le:s14/16>>2", scale: "0.002394", buffered: false)
        let light = FakeAuxiliaryDevice.iio(1, name: "als", attributes: ["in_illuminance_input": "312"])
        let input = FakeInputAccelerometer()
        let proximity = FakeAuxiliaryDevice.proximitySwitch(7)
        let hwmon = FakeAuxiliaryDevice.hwmonLight(0, light: "(10,51)")
        for description in [accel.description, light.description, proximity.description, hwmon.description] + input.descriptions {
            try testbed.add(description)
        }

        let motion = try SensorBackends.discover(.motion)
        #expect(motion.auxiliary.isEmpty, "a motion discovery describes no light, proximity or compass sensor")
        #expect(motion.motion.map { "\($0.id) \($0.kind) \($0.backend)" }
                == ["iio:device0 accelerometer iio", "iio:device1 other iio", "event5 accelerometer input-accelerometer"])

        let auxiliary = try SensorBackends.discover(.auxiliary)
        #expect(auxiliary.motion.isEmpty)
        #expect(auxiliary.auxiliary.map { "\($0.id) \($0.kind) \($0.backend)" }
                == ["iio:device1 light iio", "hwmon0 light hwmon-light", "event7 proximity input-switch"])
        for sensor in auxiliary.auxiliary {
            #expect(SensorBackends.auxiliaryRead(sensor) != nil, "\(sensor.id)")
        }
        // The facades are the table's halves.
        #expect(try UdevDiscovery.sensors() == motion.motion)
        #expect(try AuxiliaryDiscovery.sensors() == auxiliary.auxiliary)
    }
}
