import Glibc

/// Which axis channels an IIO device has, and how they can be read: through `in_<family>_<axis>_raw`
/// (or `_input`) attributes (polled), through scan elements (`scan_elements/in_<family>_<axis>_en`,
/// buffered), or both.
///
/// iio-sensor-proxy's udev rule tags a device `iio-poll-accel` when it has the three raw
/// attributes and `iio-buffer-accel` when it has the three scan elements, and reads either, with
/// or without a trigger; a device with only scan elements and a buffer is an accelerometer too
/// (issue 16, item 1). A scan element counts only when the device has a buffer (a device node
/// and `buffer/enable`): without one it cannot be read at all.
struct IIOChannelFamily {
    /// The device's top-level sysfs attributes (udev lists no subdirectories).
    let attributes: Set<String>
    let syspath: String
    let hasBuffer: Bool

    /// `accel_x`, `accel_y`, `accel_z` (those present) for `family` `accel`.
    func axes(_ family: String) -> [String] {
        ["x", "y", "z"].map { "\(family)_\($0)" }.filter { polled($0) || (hasBuffer && scanned($0)) }
    }

    /// True when every axis of `family` has a raw (or input) attribute.
    func polls(_ family: String) -> Bool {
        ["x", "y", "z"].allSatisfy { polled("\(family)_\($0)") }
    }

    private func polled(_ channel: String) -> Bool {
        attributes.contains("in_\(channel)_raw") || attributes.contains("in_\(channel)_input")
    }

    private func scanned(_ channel: String) -> Bool {
        access(syspath + "/scan_elements/in_\(channel)_en", F_OK) == 0
    }
}
