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

    /// A proximity switch on an input device (`capabilities/sw` with bit 11, SW_FRONT_PROXIMITY)
    /// and its event node, a PTY: bytes written to it are `struct input_event`s the reader gets.
    static func proximitySwitch(_ index: Int) -> (description: String, syspath: String, node: String) {
        let parent = "/devices/platform/gpio-keys/input/input\(index)"
        let lines = ["P: \(parent)", "E: SUBSYSTEM=input", "E: ID_INPUT=1", "E: ID_INPUT_SWITCH=1",
                     "A: name=gpio-keys\\n", "A: capabilities/sw=800\\n", "",
                     "P: \(parent)/event\(index)", "N: input/event\(index)", "E: DEVNAME=/dev/input/event\(index)", "E: SUBSYSTEM=input",
                     "E: ID_INPUT=1", "E: ID_INPUT_SWITCH=1", "E: MAJOR=13", "E: MINOR=\(64 + index)", "A: dev=13:\(64 + index)\\n"]
        return (lines.joined(separator: "\n") + "\n\n", "/sys\(parent)/event\(index)", "/dev/input/event\(index)")
    }

    /// One `struct input_event` (x86-64: 16 bytes of time, type, code, value).
    static func inputEvent(type: UInt16, code: UInt16, value: Int32) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        withUnsafeBytes(of: type.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: code.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
        return bytes
    }

    /// A HID-style light sensor with only the buffered `in_intensity_both` (u32, × 0.1) and a
    /// /dev node (a PTY: 4 little-endian bytes written to it are one scan).
    static func bufferedLight(_ index: Int) -> (description: String, syspath: String, node: String) {
        let path = "/devices/platform/fake-als-\(index)/iio:device\(index)"
        let lines = ["P: \(path)", "N: iio:device\(index)", "E: DEVNAME=/dev/iio:device\(index)", "E: DEVTYPE=iio_device", "E: SUBSYSTEM=iio",
                     "E: MAJOR=243", "E: MINOR=\(index)", "A: dev=243:\(index)\\n", "A: name=als\\n", "A: in_intensity_both_scale=0.1\\n",
                     "A: scan_elements/in_intensity_both_en=0\\n", "A: scan_elements/in_intensity_both_index=0\\n",
                     "A: scan_elements/in_intensity_both_type=le:u32/32>>0\\n", "A: buffer/enable=0\\n", "A: buffer/length=0\\n"]
        return (lines.joined(separator: "\n") + "\n\n", "/sys" + path, "/dev/iio:device\(index)")
    }

    /// Apple's ambient light sensor: a hwmon device with `light`.
    static func hwmonLight(_ index: Int, light: String) -> (description: String, syspath: String) {
        let path = "/devices/platform/applesmc.768/hwmon/hwmon\(index)"
        let lines = ["P: \(path)", "E: SUBSYSTEM=hwmon", "A: name=applesmc\\n", "A: light=\(light)\\n"]
        return (lines.joined(separator: "\n") + "\n\n", "/sys" + path)
    }
}
