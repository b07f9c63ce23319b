import CLibUdev
import OrientationCore
import SensorDeviceAccess

/// The hwmon light row of ``SensorBackends/all``: Apple's applesmc, a `hwmon` or `platform`
/// device with a `light` attribute, `(left,right)` with 0–255 each, read every 8 s and published
/// as a percentage (unit `vendor`), as iio-sensor-proxy's `hwmon-als` does.
///
/// The smallest row, and the worked example of docs/ARCHITECTURE.md §10 ("Adding a backend").
public enum HwmonLightBackend: SensorBackend {
    public static let name = "hwmon-light"
    public static let families: Set<SensorFamily> = [.auxiliary]

    public static func discover(_ family: SensorFamily) throws(SensorError) -> DiscoveredSensors {
        var found = DiscoveredSensors()
        try UdevEnumeration.forEachDevice(subsystems: ["hwmon", "platform"], attribute: "light") { device in
            guard let id = udev_device_get_sysname(device).map({ String(cString: $0) }),
                  let path = udev_device_get_syspath(device).map({ String(cString: $0) }) else { return }
            let subsystem = udev_device_get_subsystem(device).map { String(cString: $0) } ?? "hwmon"
            found.auxiliary += AuxiliarySensorDescription.classify(
                id: id, name: UdevEnumeration.attribute(device, "name"), sysfsPath: path, subsystem: subsystem,
                attributes: UdevEnumeration.attributeNames(device), properties: UdevEnumeration.properties(device),
                value: { UdevEnumeration.attribute(device, $0) })
        }
        return found
    }

    public static func auxiliaryRead(_ sensor: AuxiliarySensorDescription) -> AuxiliaryRead? {
        guard sensor.shape == .hwmonLight else { return nil }
        let path = sensor.sysfsPath
        return .everyPeriod {
            AuxiliarySensorReader.readAttribute(path, "light").flatMap { text in
                AuxiliarySensorReader.hwmonLightPercent(text).map { .success($0) }
                    ?? .failure(AuxiliaryReadFailure("cannot parse light \"\(text)\""))
            }
        }
    }
}
