import CLibUdev
import Glibc
import SensorDeviceAccess

/// Finds accelerometers of the input subsystem: evdev nodes that udev's input_id builtin marks
/// `ID_INPUT_ACCELEROMETER=1` (lis3lv02d on HP laptops, older tablets, some game controllers).
///
/// Rules (iio-sensor-proxy's `input-accel`, facts of its drv-input-accel.c):
/// - only `eventN` devices with a device node;
/// - not the motion sensor of a game controller: a device whose physical device (the parent of
///   its `inputN`) also carries an input device with `ID_INPUT_JOYSTICK=1` is skipped;
/// - the name is the `inputN` parent's `NAME` (quotes removed), else `ID_MODEL`, else the
///   sysname; location and mount matrix as for IIO devices: `ACCEL_LOCATION`,
///   `ACCEL_MOUNT_MATRIX` (systemd's hwdb matches input accelerometers too).
/// The udev handles stay in the call, as in ``UdevDiscovery``.
enum InputAccelerometerDiscovery {
    static func sensors() -> [SensorDescription] {
        let accelerometers = devices(property: "ID_INPUT_ACCELEROMETER")
        guard !accelerometers.isEmpty else { return [] }
        let joysticks = devices(property: "ID_INPUT_JOYSTICK").map(\.syspath)
        var result: [SensorDescription] = []
        for device in accelerometers where device.sysname.hasPrefix("event") {
            guard let node = device.node else { continue }
            if let physical = device.grandparent, joysticks.contains(where: { $0.hasPrefix(physical + "/") }) { continue }
            let name = device.parentName ?? device.properties["ID_MODEL"] ?? device.sysname
            var location = SensorDescription.Location.unknown
            var locationSource = "default"
            if let value = device.properties["ACCEL_LOCATION"] {
                location = value == "base" ? .base : (value == "display" || value == "lid" ? .display : .unknown)
                locationSource = "udev ACCEL_LOCATION=\(value)"
            }
            let candidates = device.properties["ACCEL_MOUNT_MATRIX"].map { [MountMatrixCandidateText(source: "udev ACCEL_MOUNT_MATRIX", text: $0)] } ?? []
            result.append(SensorDescription(id: device.sysname, name: name, sysfsPath: device.syspath, deviceNode: node, kind: .accelerometer,
                                            location: location, locationSource: locationSource, label: nil,
                                            properties: device.properties, mountMatrixCandidates: candidates, hasBuffer: false,
                                            channels: ["accel_x", "accel_y", "accel_z"], hasRawAttributes: false, bus: .input,
                                            backend: InputAccelerometerBackend.name))
        }
        return result
    }

    /// What discovery needs of one input device, as Swift values.
    struct Found {
        var sysname: String
        var syspath: String
        var node: String?
        var properties: [String: String]
        /// The `inputN` parent's NAME, quotes removed.
        var parentName: String?
        /// The physical device: the `inputN` parent's parent.
        var grandparent: String?
    }

    /// Input devices whose udev `property` is `1` (none when udev cannot be enumerated: the
    /// IIO half of discovery reports that).
    static func devices(property: String) -> [Found] {
        var result: [Found] = []
        try? UdevEnumeration.forEachDevice(subsystems: ["input"], property: property) { result.append(found($0)) }
        return result
    }

    private static func found(_ device: OpaquePointer) -> Found {
        // The parent and grandparent belong to `device` (libudev frees them with it).
        let parent = udev_device_get_parent(device)
        let parentName = parent.flatMap { udev_device_get_property_value($0, "NAME") }.map { String(cString: $0).trimmingCharacters(in: "\"") }
        let grandparent = parent.flatMap { udev_device_get_parent($0) }.flatMap { udev_device_get_syspath($0) }.map { String(cString: $0) }
        return Found(sysname: udev_device_get_sysname(device).map { String(cString: $0) } ?? "",
                     syspath: udev_device_get_syspath(device).map { String(cString: $0) } ?? "",
                     node: udev_device_get_devnode(device).map { String(cString: $0) },
                     properties: UdevEnumeration.properties(device), parentName: parentName, grandparent: grandparent)
    }
}
