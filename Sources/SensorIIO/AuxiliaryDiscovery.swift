import AmbientSensorCore
import OrientationCore
import SensorDeviceAccess

/// Finds light, proximity and compass sensors: the auxiliary half of the backend table
/// (``SensorBackends``): every `iio` device, `hwmon` and `platform` devices with a `light`
/// attribute (Apple's applesmc), and input event nodes with the `SW_FRONT_PROXIMITY` switch.
/// Blocks while libudev enumerates: call it on an owner thread (``OwnerThread/run(name:_:)``, or
/// the udev monitor's).
public enum AuxiliaryDiscovery {
    /// Every such sensor, IIO devices first (by number), then the others by id.
    public static func sensors() throws(SensorError) -> [AuxiliarySensorDescription] {
        try SensorBackends.discover(.auxiliary).auxiliary
    }
}

/// Which light, proximity or compass sensor the daemon reads, and why (`--list-sensors`).
///
/// Rules: a configured selector (``DeviceSelector``) wins when it matches a sensor of that kind;
/// one that matches nothing is warned about and the automatic choice applies. Automatic: the
/// first usable sensor of the kind (IIO by number, then hwmon); unusable ones (a proximity
/// sensor without a near level) are listed with the reason.
public struct AuxiliaryChoice: Sendable, Hashable {
    public var chosen: AuxiliarySensorDescription?
    /// Per sensor (by sysfs path): why it was chosen or not.
    public var reasons: [String: String]
    public var warnings: [String]

    public static func choose(_ kind: AuxiliarySensorKind, from sensors: [AuxiliarySensorDescription], selector: String?) -> AuxiliaryChoice {
        let candidates = sensors.filter { $0.kind == kind }
        var reasons: [String: String] = [:]
        var warnings: [String] = []
        var chosen: AuxiliarySensorDescription? = nil
        if let selector {
            if let match = candidates.first(where: { DeviceSelector.matches(selector, id: $0.id, name: $0.name, sysfsPath: $0.sysfsPath, properties: $0.properties) }) {
                if let why = match.unusableReason {
                    warnings.append("\(kind) device \(selector) matches \(match.id) (\(match.name)), which cannot be used: \(why); choosing automatically")
                } else {
                    chosen = match
                    reasons[match.sysfsPath] = "configured (device = \(selector))"
                }
            } else {
                warnings.append("\(kind) device \(selector) matches no \(kind.noun); choosing automatically")
            }
        }
        for sensor in candidates where sensor != chosen {
            if let why = sensor.unusableReason {
                reasons[sensor.sysfsPath] = "not used: \(why)"
            } else if let current = chosen {
                reasons[sensor.sysfsPath] = "another \(kind.noun) is used (\(current.id))"
            } else {
                chosen = sensor
                reasons[sensor.sysfsPath] = "\(kind.noun), read every \(sensor.pollPeriod) s"
            }
        }
        return AuxiliaryChoice(chosen: chosen, reasons: reasons, warnings: warnings)
    }
}
