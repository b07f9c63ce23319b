import CLibUdev
import Glibc
import SensorDeviceAccess

/// A kernel IIO channel that reports a convertible's hinge (lid) angle itself (issue 30), so
/// the angle need not be computed from two accelerometers: found through libudev
/// (the IIO row of the backend table, ``SensorBackends/discover(_:)`` with `.hinge`) and read by ``HingeAngleReader``. Degrees as the posture detector counts
/// them: 0 closed, about 110 as a laptop, 180 flat, 360 folded back.
///
/// Only the two drivers the kernel has for this are taken, by their IIO device names; other
/// `in_angl` channels (a rotary knob such as iqs624-pos's) are not hinges:
///
/// | driver | IIO `name` | channel | value |
/// |---|---|---|---|
/// | cros_ec_lid_angle (drivers/iio/common/cros_ec_sensors/cros_ec_lid_angle.c, Chromebooks) | `cros-ec-lid-angle` | `in_angl_raw` (one channel, raw only) | degrees as the EC computes them; 500 (`LID_ANGLE_UNRELIABLE`, include/linux/platform_data/cros_ec_commands.h) when it cannot tell |
/// | hid-sensor-custom-intel-hinge (drivers/iio/position/, HID usage 0x020B) | `hinge` | `in_angl0_raw` (label `hinge`; 1 is `screen`, 2 `keyboard`) | (raw + `in_angl_offset`) × `in_angl_scale` in radians, the IIO ABI's unit for `angl` (the HID driver's scale turns the sensor's degrees into radians: π/180) |
///
/// Contract: ``degrees(raw:)`` is `nil` for a reading that says nothing (the EC's 500, a value
/// outside 0–360 by more than a degree, not a number), never a made-up angle; a device of one
/// of these drivers that cannot be read (no raw file, a HID hinge without its scale) is listed
/// with ``unusableReason``, not left out silently.
public struct HingeAngleChannel: Sendable, Hashable {
    /// Which driver made it.
    public enum Driver: String, Sendable, CaseIterable {
        /// ChromeOS EC's lid angle.
        case crosECLidAngle = "cros-ec-lid-angle"
        /// Intel's HID custom hinge sensor.
        case hidHinge = "hinge"
    }

    /// The IIO device's sysfs name (`iio:device3`).
    public let id: String
    /// Its sysfs directory.
    public let sysfsPath: String
    public let driver: Driver
    /// The file read for each reading (`in_angl_raw`, `in_angl0_raw`).
    public let rawAttribute: String
    /// Radians per count, from the channel's scale attribute; `nil` where the raw value is
    /// already in degrees (cros-ec).
    public let scale: Double?
    /// Counts added before the scale (`in_angl_offset`, 0 when absent).
    public let offset: Double
    /// Why it cannot be used, or `nil`.
    public let unusableReason: String?

    /// The EC's "cannot tell" value (`LID_ANGLE_UNRELIABLE`).
    public static let crosECUnreliable = 500.0

    public init(id: String, sysfsPath: String, driver: Driver, rawAttribute: String, scale: Double?, offset: Double,
                unusableReason: String? = nil) {
        self.id = id
        self.sysfsPath = sysfsPath
        self.driver = driver
        self.rawAttribute = rawAttribute
        self.scale = scale
        self.offset = offset
        self.unusableReason = unusableReason
    }

    /// The angle in degrees for a raw reading, or `nil` when the reading says nothing (see the
    /// type's contract). Values within a degree outside 0–360 are clamped (rounding in the
    /// sensor); farther out, `nil`.
    public func degrees(raw: Double) -> Double? {
        guard raw.isFinite else { return nil }
        let degrees: Double
        switch driver {
        case .crosECLidAngle:
            guard raw != Self.crosECUnreliable else { return nil }
            degrees = raw
        case .hidHinge:
            guard let scale else { return nil }
            degrees = (raw + offset) * scale * 180 / Double.pi
        }
        guard degrees >= -1, degrees <= 361 else { return nil }
        return min(max(degrees, 0), 360)
    }

    /// Describes the IIO device at `sysfsPath` if its `name` is one of the hinge drivers';
    /// `nil` otherwise. Reads sysfs (blocking): call on an owner thread.
    public static func describe(id: String, sysfsPath: String, name: String) -> HingeAngleChannel? {
        guard let driver = Driver(rawValue: name) else { return nil }
        let exists = { (file: String) in access(sysfsPath + "/" + file, F_OK) == 0 }
        switch driver {
        case .crosECLidAngle:
            return HingeAngleChannel(id: id, sysfsPath: sysfsPath, driver: driver, rawAttribute: "in_angl_raw", scale: nil, offset: 0,
                                     unusableReason: exists("in_angl_raw") ? nil : "no in_angl_raw")
        case .hidHinge:
            // The channel labelled "hinge" (the driver's labels, Linux 5.12), else channel 0 as the driver orders them.
            let index = (0..<3).first { SysfsAttribute.read(sysfsPath + "/in_angl\($0)_label") == "hinge" } ?? 0
            let channel = "in_angl\(index)"
            let attribute = { (name: String) in SysfsAttribute.channelPath(sysfsPath, channel: channel, name) }
            let scale = attribute("scale").flatMap(SysfsAttribute.number)
            let offset = attribute("offset").flatMap(SysfsAttribute.number) ?? 0
            let reason: String? = if !exists(channel + "_raw") { "no \(channel)_raw" }
                else if scale == nil { "no readable scale for \(channel) (in_angl_scale): its unit is unknown" }
                else { nil }
            return HingeAngleChannel(id: id, sysfsPath: sysfsPath, driver: driver, rawAttribute: channel + "_raw", scale: scale,
                                     offset: offset, unusableReason: reason)
        }
    }
}
