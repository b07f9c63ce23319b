import CLibUdev
import Glibc

/// libudev enumeration and the reading of one device's properties and attributes, shared by
/// the accelerometer's discovery (``UdevDiscovery``, ``InputAccelerometerDiscovery``) and the
/// light, proximity and compass discovery (``AuxiliaryDiscovery``). Every handle lives inside one call, on the calling
/// thread; only Swift values leave.
package enum UdevEnumeration {
    /// Calls `body` with each device of `subsystems` (and, when given, having the sysfs
    /// attribute `attribute`, and the udev property `property` set to `1`). The device handle
    /// is valid only during the call.
    package static func forEachDevice(subsystems: [String], attribute: String? = nil, property: String? = nil,
                              _ body: (OpaquePointer) -> Void) throws(SensorError) {
        guard let udev = udev_new() else { throw .udev("udev_new failed") }
        defer { udev_unref(udev) }
        guard let enumerate = udev_enumerate_new(udev) else { throw .udev("udev_enumerate_new failed") }
        defer { udev_enumerate_unref(enumerate) }
        for subsystem in subsystems { udev_enumerate_add_match_subsystem(enumerate, subsystem) }
        if let attribute { udev_enumerate_add_match_sysattr(enumerate, attribute, nil) }
        if let property { udev_enumerate_add_match_property(enumerate, property, "1") }
        guard udev_enumerate_scan_devices(enumerate) >= 0 else { throw .udev("cannot scan udev devices") }
        var entry = udev_enumerate_get_list_entry(enumerate)
        while let current = entry {
            if let path = udev_list_entry_get_name(current), let device = udev_device_new_from_syspath(udev, path) {
                body(device)
                udev_device_unref(device)
            }
            entry = udev_list_entry_get_next(current)
        }
    }

    /// All udev properties of `device`.
    package static func properties(_ device: OpaquePointer) -> [String: String] {
        var properties: [String: String] = [:]
        var property = udev_device_get_properties_list_entry(device)
        while let current = property {
            if let name = udev_list_entry_get_name(current), let value = udev_list_entry_get_value(current) {
                properties[String(cString: name)] = String(cString: value)
            }
            property = udev_list_entry_get_next(current)
        }
        return properties
    }

    /// The names of `device`'s sysfs attributes (top level only: no `scan_elements/…`).
    package static func attributeNames(_ device: OpaquePointer) -> Set<String> {
        var attributes = Set<String>()
        var attribute = udev_device_get_sysattr_list_entry(device)
        while let current = attribute {
            if let name = udev_list_entry_get_name(current) { attributes.insert(String(cString: name)) }
            attribute = udev_list_entry_get_next(current)
        }
        return attributes
    }

    /// One attribute's value, trimmed of newlines, NULs and spaces; `nil` when absent or empty.
    package static func attribute(_ device: OpaquePointer, _ name: String) -> String? {
        guard let value = udev_device_get_sysattr_value(device, name) else { return nil }
        let text = String(cString: value).trimmingCharacters(in: "\n\0 ")
        return text.isEmpty ? nil : text
    }
}
