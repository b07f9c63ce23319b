import SensorIIO
import Testing

/// The hinge-angle channels' units (issue 30): cros-ec's raw degrees with the EC's "cannot
/// tell" 500, and the HID hinge's (raw + offset) × scale in radians.
struct HingeAngleChannelTests {
    static let cros = HingeAngleChannel(id: "iio:device0", sysfsPath: "/sys/x", driver: .crosECLidAngle, rawAttribute: "in_angl_raw",
                                        scale: nil, offset: 0)
    /// hid-sensor-attributes' hinge scale for a sensor reporting degrees: π/180 as the kernel prints it.
    static let hid = HingeAngleChannel(id: "iio:device1", sysfsPath: "/sys/y", driver: .hidHinge, rawAttribute: "in_angl0_raw",
                                       scale: 0.017453293, offset: 0)
    static let hidWithOffset = HingeAngleChannel(id: "iio:device1", sysfsPath: "/sys/y", driver: .hidHinge, rawAttribute: "in_angl0_raw",
                                                 scale: 0.017453293 / 10, offset: -100)
    static let hidWithoutScale = HingeAngleChannel(id: "iio:device1", sysfsPath: "/sys/y", driver: .hidHinge, rawAttribute: "in_angl0_raw",
                                                   scale: nil, offset: 0, unusableReason: "no scale")

    struct Row: Sendable, CustomTestStringConvertible {
        let channel: HingeAngleChannel
        let raw: Double
        let degrees: Double?
        var testDescription: String { "\(channel.driver.rawValue) raw \(raw)" }
    }

    static let rows: [Row] = [
        Row(channel: cros, raw: 0, degrees: 0), Row(channel: cros, raw: 110, degrees: 110), Row(channel: cros, raw: 180, degrees: 180),
        Row(channel: cros, raw: 360, degrees: 360), Row(channel: cros, raw: 500, degrees: nil), Row(channel: cros, raw: 361, degrees: 360),
        Row(channel: cros, raw: 362, degrees: nil), Row(channel: cros, raw: -1, degrees: 0), Row(channel: cros, raw: -2, degrees: nil),
        Row(channel: cros, raw: .nan, degrees: nil), Row(channel: cros, raw: .infinity, degrees: nil),
        // A Yoga 530's in_angl0_raw readings (github.com/alesya-h/linux_detect_tablet_mode/issues/38): 101, 139, 75.
        Row(channel: hid, raw: 101, degrees: 101), Row(channel: hid, raw: 139, degrees: 139), Row(channel: hid, raw: 75, degrees: 75),
        Row(channel: hid, raw: 359, degrees: 359), Row(channel: hid, raw: 500, degrees: nil),
        Row(channel: hidWithOffset, raw: 1200, degrees: 110), Row(channel: hidWithOffset, raw: 100, degrees: 0),
        Row(channel: hidWithoutScale, raw: 110, degrees: nil),
    ]

    @Test(arguments: rows)
    func convertsTheDriversUnitToDegrees(_ row: Row) {
        let degrees = row.channel.degrees(raw: row.raw)
        if let expected = row.degrees {
            #expect(degrees.map { abs($0 - expected) < 1e-4 } == true, "\(String(describing: degrees))")
        } else {
            #expect(degrees == nil)
        }
    }
}
