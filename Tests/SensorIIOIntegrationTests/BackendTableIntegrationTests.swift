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

    /// Issue 36: a convertible's hinge angle and its switches are found by the table's rows too
    /// (the IIO row and the input-switch row), and one discovery of every family finds what the
    /// families found one by one: what the daemon's hotplug handler makes once per udev event.
    @Test func theHingeAndTheSwitchesAreRowsOfTheTableAndOneDiscoveryFindsEverything() throws {
        let testbed = Testbed()
        let accel = FakeIIODevice(index: 0, name: "da280", format: "le:s14/16>>2", scale: "0.002394", buffered: false)
        let hinge = Self.crosECLidAngle(1, raw: "110")
        let light = FakeAuxiliaryDevice.iio(2, name: "als", attributes: ["in_illuminance_input": "312"])
        let proximity = FakeAuxiliaryDevice.proximitySwitch(7)
        for description in [accel.description, hinge.description, light.description, proximity.description,
                            FakeInputSwitch.acpiLid(3).description, FakeInputSwitch.intelHIDSwitches(4).description,
                            FakeInputSwitch.orientationdSwitch(5).description] {
            try testbed.add(description)
        }
        let hinges = try SensorBackends.discover([.hinge])
        #expect(hinges.hinges.map { "\($0.id) \($0.driver.rawValue)" } == ["iio:device1 cros-ec-lid-angle"])
        #expect(hinges.motion.isEmpty && hinges.auxiliary.isEmpty && hinges.switches.isEmpty)
        let switches = try SensorBackends.discover([.switches])
        #expect(switches.switches.count == 4, "the lid, intel-hid's, orientationd's own and the proximity switch: \(switches.switches.map(\.id))")
        #expect(switches.lidSwitch?.name == "Lid Switch")
        #expect(switches.realTabletModeSwitches.map(\.name) == ["Intel HID switches"], "orientationd's own is not the machine's")
        #expect(switches.auxiliary.isEmpty, "asked for switches only: no proximity sensor described")
        let everything = try SensorBackends.discover(SensorBackends.everything)
        var oneByOne = DiscoveredSensors()
        for family in SensorFamily.allCases { oneByOne.append(try SensorBackends.discover(family)) }
        #expect(Set(everything.motion.map(\.id)) == Set(oneByOne.motion.map(\.id)) && everything.motion.count == oneByOne.motion.count)
        #expect(everything.auxiliary == oneByOne.auxiliary && everything.hinges == oneByOne.hinges)
        #expect(everything.switches == oneByOne.switches)
    }
}
