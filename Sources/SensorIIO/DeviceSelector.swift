/// A configured device selector (`device =` in `[sensor]`, `[light]`, `[proximity]`,
/// `[compass]`; `--sensor`): an id (`iio:device3`), a driver name (`bmc150_accel`), a sysfs
/// path, or a udev property `KEY=VALUE`.
enum DeviceSelector {
    static func matches(_ selector: String, id: String, name: String, sysfsPath: String, properties: [String: String]) -> Bool {
        if selector == id || selector == name || selector == sysfsPath { return true }
        if let equals = selector.firstIndex(of: "=") {
            let key = String(selector[..<equals]), value = String(selector[selector.index(after: equals)...])
            return properties[key] == value
        }
        return false
    }
}
