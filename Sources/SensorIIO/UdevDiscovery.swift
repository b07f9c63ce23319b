import CLibUdev
import Glibc

/// Finds IIO devices through libudev and describes them.
///
/// The udev handles live only inside one call (created, used and released on the calling thread);
/// nothing libudev returns escapes as anything but Swift values.
public enum UdevDiscovery {
    /// Every device of the `iio` subsystem, and every input-subsystem accelerometer
    /// (``InputAccelerometerDiscovery``), described; sorted by id.
    public static func sensors() throws(SensorError) -> [SensorDescription] {
        var result: [SensorDescription] = []
        try UdevEnumeration.forEachDevice(subsystems: ["iio"]) { device in
            if let description = describe(device) { result.append(description) }
        }
        result += InputAccelerometerDiscovery.sensors()  // the input subsystem's (issue 16)
        return result.sorted { (SensorChoice.number($0.id), $0.id) < (SensorChoice.number($1.id), $1.id) }
    }

    /// Describes one udev device of the iio subsystem; `nil` for things that are not IIO devices
    /// (triggers: ``isDevice(_:)``).
    static func describe(_ device: OpaquePointer) -> SensorDescription? {
        guard let sysname = udev_device_get_sysname(device).map({ String(cString: $0) }), isDevice(sysname),
              let syspath = udev_device_get_syspath(device).map({ String(cString: $0) }) else { return nil }
        let properties = UdevEnumeration.properties(device)
        let attributes = UdevEnumeration.attributeNames(device)
        func sysattr(_ name: String) -> String? { UdevEnumeration.attribute(device, name) }
        let node = udev_device_get_devnode(device).map { String(cString: $0) }
        let hasBuffer = node != nil && access(syspath + "/scan_elements", F_OK) == 0 && access(syspath + "/buffer/enable", F_OK) == 0
        let family = IIOChannelFamily(attributes: attributes, syspath: syspath, hasBuffer: hasBuffer)
        let accel = family.axes("accel"), gyro = family.axes("anglvel")
        let kind: SensorDescription.Kind = accel.count == 3 ? .accelerometer : (gyro.count == 3 ? .gyroscope : .other)

        var location = SensorDescription.Location.unknown
        var locationSource = "default"
        if let value = properties["ACCEL_LOCATION"] {
            location = value == "base" ? .base : (value == "display" ? .display : .unknown)
            locationSource = "udev ACCEL_LOCATION=\(value)"
        } else if let label = sysattr("label"), label.contains("base") || label.contains("display") {
            location = label.contains("base") ? .base : .display
            locationSource = "sysfs label=\(label)"
        } else if let value = sysattr("location"), ["base", "lid", "display"].contains(value) {
            location = value == "base" ? .base : .display
            locationSource = "sysfs location=\(value)"
        }

        var candidates: [MountMatrixCandidateText] = []
        if let matrix = properties["ACCEL_MOUNT_MATRIX"] {
            candidates.append(MountMatrixCandidateText(source: "udev ACCEL_MOUNT_MATRIX", text: matrix))
        }
        let prefix = kind == .gyroscope ? "in_anglvel" : "in_accel"
        for name in ["\(prefix)_mount_matrix", "mount_matrix", "in_mount_matrix"] {
            if let matrix = sysattr(name) {
                candidates.append(MountMatrixCandidateText(source: "sysfs \(syspath)/\(name)", text: matrix))
            }
        }
        return SensorDescription(id: sysname, name: sysattr("name") ?? sysname, sysfsPath: syspath, deviceNode: node, kind: kind,
                                 location: location, locationSource: locationSource, label: sysattr("label"),
                                 properties: properties, mountMatrixCandidates: candidates, hasBuffer: hasBuffer,
                                 channels: accel + gyro, hasRawAttributes: family.polls(kind == .gyroscope ? "anglvel" : "accel"))
    }
}

extension UdevDiscovery {
    /// True for an IIO device's sysname: the kernel's `iio:deviceN`, or any other name in the
    /// subsystem that is not a trigger (`triggerN`, `iio_sysfs_trigger`). Fixtures name devices
    /// freely (iio-sensor-proxy's acceptance suite uses `iio-accel`); libiio lists them all.
    static func isDevice(_ sysname: String) -> Bool {
        sysname.hasPrefix("iio:device") || (!sysname.hasPrefix("trigger") && !sysname.hasPrefix("iio_sysfs_trigger") && !sysname.isEmpty)
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return String(s)
    }
}
