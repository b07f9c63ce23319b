import Glibc
import SensorIIO
import Testing
import TestSupport
import SensorDeviceAccess

/// The kernel's hinge-angle channels under umockdev (issue 30), found through the real libudev
/// and read by polling sysfs. The devices are written from the drivers' sources (IIO names and
/// attributes: drivers/iio/common/cros_ec_sensors/cros_ec_lid_angle.c, drivers/iio/position/
/// hid-sensor-custom-intel-hinge.c and hid-sensor-attributes.c's hinge scale), the HID values from a
/// Yoga 530's in_angl0_raw in https://github.com/alesya-h/linux_detect_tablet_mode/issues/38.
extension SensorIIOIntegrationTests {
    static func crosECLidAngle(_ index: Int, raw: String) -> (description: String, syspath: String) {
        FakeAuxiliaryDevice.iio(index, name: "cros-ec-lid-angle", attributes: ["in_angl_raw": raw])
    }

    static func hidHinge(_ index: Int, hinge: String, scale: String? = "0.017453293") -> (description: String, syspath: String) {
        var attributes = ["in_angl0_raw": hinge, "in_angl1_raw": "12", "in_angl2_raw": "262", "in_angl0_label": "hinge",
                          "in_angl1_label": "screen", "in_angl2_label": "keyboard", "in_angl_offset": "0",
                          "in_angl_hysteresis": "0", "in_angl_sampling_frequency": "10.000000"]
        attributes["in_angl_scale"] = scale
        return FakeAuxiliaryDevice.iio(index, name: "hinge", attributes: attributes)
    }

    @Test func findsBothHingeDriversAndNoOtherAngleChannel() throws {
        let testbed = Testbed()
        let devices = [
            Self.crosECLidAngle(0, raw: "110"), Self.hidHinge(1, hinge: "101"),
            // iqs624-pos: a rotary knob's in_angl, not a hinge.
            FakeAuxiliaryDevice.iio(2, name: "iqs624-pos", attributes: ["in_angl_raw": "90", "in_angl_scale": "0.049087385"]),
            Self.hidHinge(3, hinge: "101", scale: nil),
        ]
        for device in devices { try testbed.add(device.description) }
        let channels = try SensorBackends.discover([.hinge]).hinges
        #expect(channels.map(\.id) == ["iio:device0", "iio:device1", "iio:device3"])
        #expect(channels.map(\.driver) == [.crosECLidAngle, .hidHinge, .hidHinge])
        #expect(channels.map(\.rawAttribute) == ["in_angl_raw", "in_angl0_raw", "in_angl0_raw"])
        #expect(channels[0].scale == nil && channels[0].unusableReason == nil)
        #expect(channels[1].scale == 0.017453293 && channels[1].offset == 0 && channels[1].unusableReason == nil)
        #expect(channels[2].unusableReason?.contains("scale") == true, "a HID hinge without its scale has no known unit")
        #expect(throws: SensorError.self) { try HingeAngleReader(channel: channels[2], onReading: { _ in nil }, onEnd: { _ in }).start() }
    }

    @Test func theCrosECLidAngleIsReadInDegreesAndItsUnreliableValueIsNoAngle() async throws {
        let testbed = Testbed()
        let device = Self.crosECLidAngle(0, raw: "110")
        try testbed.add(device.description)
        let channel = try #require(try SensorBackends.discover([.hinge]).hinges.first)
        let readings = AwaitedLog<HingeAngleReader.Reading>()
        let reader = HingeAngleReader(channel: channel, period: 0.02, onReading: { readings.append($0); return nil }, onEnd: { _ in })
        let started = monotonicNow()
        try reader.start()
        #expect(await readings.wait { $0.first?.degrees == 110 })
        #expect((readings.all.first?.time ?? 0) >= started)
        testbed.setAttribute(device.syspath, "in_angl_raw", "500\n")
        #expect(await readings.wait { $0.last?.raw == 500 && $0.last?.degrees == nil })
        testbed.setAttribute(device.syspath, "in_angl_raw", "300\n")
        #expect(await readings.wait { $0.last?.degrees == 300 })
        await reader.stop()
        let times = readings.all.map(\.time)
        #expect(times == times.sorted())
    }

    @Test func theHIDHingeIsReadThroughItsScale() async throws {
        let testbed = Testbed()
        let device = Self.hidHinge(0, hinge: "101")
        try testbed.add(device.description)
        let channel = try #require(try SensorBackends.discover([.hinge]).hinges.first)
        let readings = AwaitedLog<HingeAngleReader.Reading>()
        let reader = HingeAngleReader(channel: channel, period: 0.02, onReading: { readings.append($0); return nil }, onEnd: { _ in })
        try reader.start()
        #expect(await readings.wait { $0.first.flatMap(\.degrees).map { abs($0 - 101) < 1e-3 } == true })
        testbed.setAttribute(device.syspath, "in_angl0_raw", "139\n")
        #expect(await readings.wait { $0.last.flatMap(\.degrees).map { abs($0 - 139) < 1e-3 } == true })
        await reader.stop()
    }

    /// Issue 37, item 4: the reader waits as long as its consumer asks (a cros-ec read is an EC
    /// host command), and ``HingeAngleReader/wake()`` reads at once.
    @Test func theReaderWaitsAsAskedAndReadsAtOnceWhenWoken() async throws {
        let testbed = Testbed()
        let device = Self.crosECLidAngle(0, raw: "110")
        try testbed.add(device.description)
        let channel = try #require(try SensorBackends.discover([.hinge]).hinges.first)
        let readings = AwaitedLog<HingeAngleReader.Reading>()
        let reader = HingeAngleReader(channel: channel, period: 0.02, onReading: { readings.append($0); return 60 }, onEnd: { _ in })
        try reader.start()
        #expect(await readings.wait { !$0.isEmpty })
        // Nothing to await: the absence of reads over 15 of its periods is what is measured.
        try await Task.sleep(for: .milliseconds(300))
        #expect(readings.all.count == 1, "asked to wait 60 s: \(readings.all.count) reads in 0.3 s")
        testbed.setAttribute(device.syspath, "in_angl_raw", "200\n")
        let woken = monotonicNow()
        reader.wake()
        #expect(await readings.wait { $0.count == 2 && $0.last?.degrees == 200 })
        #expect((readings.all.last?.time ?? .infinity) - woken < 1, "read at once when woken")
        await reader.stop()
    }

    /// The device gone: three failed reads in a row end the reader with the reason.
    @Test func aHingeChannelThatGoesAwayEndsTheReader() async throws {
        let testbed = Testbed()
        let device = Self.crosECLidAngle(0, raw: "110")
        try testbed.add(device.description)
        let channel = try #require(try SensorBackends.discover([.hinge]).hinges.first)
        let readings = AwaitedLog<HingeAngleReader.Reading>()
        let ended = AwaitedLog<String?>()
        let reader = HingeAngleReader(channel: channel, period: 0.02, onReading: { readings.append($0); return nil }, onEnd: { ended.append($0) })
        try reader.start()
        #expect(await readings.wait { !$0.isEmpty })
        testbed.remove(device.syspath)
        #expect(await ended.wait { !$0.isEmpty })
        #expect(ended.all.first??.contains("in_angl_raw") == true, "\(ended.all)")
        await reader.stop()
    }
}
