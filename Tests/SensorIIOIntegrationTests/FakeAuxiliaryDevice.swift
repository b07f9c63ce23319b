/// umockdev descriptions of light, proximity and compass devices, written from the kernel's
/// sysfs ABI (Documentation/ABI/testing/sysfs-bus-iio: `in_illuminance_input` in lux,
/// `in_illuminance_raw` × `_scale` + `_offset`, `in_proximity_raw` unitless, higher = nearer,
/// `in_proximity_nearlevel`; `in_rot_from_north_magnetic_tilt_comp_raw` × `_scale` degrees;
/// hid-sensor-als, vcnl4000, hid-sensor-magn-3d; applesmc's hwmon `light` as `(left,right)`).
enum FakeAuxiliaryDevice {
    /// An IIO device without a buffer: `attributes` as sysfs files, `udev` as properties.
    static func iio(_ index: Int, name: String, attributes: [String: String], udev: [String: String] = [:]) -> (description: String, syspath: String) {
        let path = "/devices/platform/fake-\(name)-\(index)/iio:device\(index)"
        var lines = ["P: \(path)", "E: DEVTYPE=iio_device", "E: SUBSYSTEM=iio"]
        for (key, value) in udev.sorted(by: { $0.key < $1.key }) { lines.append("E: \(key)=\(value)") }
        lines.append("A: name=\(name)\\n")
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) { lines.append("A: \(key)=\(value)\\n") }
        return (lines.joined(separator: "\n") + "\n\n", "/sys" + path)
    }

    /// Apple's ambient light sensor: a hwmon device with `light`.
    static func hwmonLight(_ index: Int, light: String) -> (description: String, syspath: String) {
        let path = "/devices/platform/applesmc.768/hwmon/hwmon\(index)"
        let lines = ["P: \(path)", "E: SUBSYSTEM=hwmon", "A: name=applesmc\\n", "A: light=\(light)\\n"]
        return (lines.joined(separator: "\n") + "\n\n", "/sys" + path)
    }
}
