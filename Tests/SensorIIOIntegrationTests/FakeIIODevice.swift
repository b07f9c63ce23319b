/// A umockdev description of an IIO device, modelled on a real driver, plus the packing of its
/// scan elements (what the kernel would write to /dev/iio:deviceN).
struct FakeIIODevice {
    var index: Int
    var name: String
    /// Channel family: `accel` or `anglvel`.
    var kind = "accel"
    /// The kernel scan format, e.g. `le:s12/16>>4`.
    var format: String
    /// `in_<kind>_scale`; `nil` for a driver that has none.
    var scale: String?
    var offset: String? = nil
    var buffered = true
    var timestamp = true
    var udev: [String: String] = [:]
    var attributes: [String: String] = [:]
    var raw: (Int, Int, Int) = (0, 0, 0)
    /// A second channel family in the same device (an IMU), with its own format and scale.
    var gyro: (format: String, scale: String)? = nil
    /// Per-axis scales (`in_accel_x_scale`, …) instead of the shared `in_accel_scale`.
    var axisScales: [String]? = nil
    /// `in_<kind>_<axis>_raw` attributes; false for a buffer-only device (scan elements only).
    var rawAttributes = true
    /// The `sampling_frequency` attribute.
    var samplingFrequency = "100"

    var id: String { "iio:device\(index)" }
    var syspath: String { "/sys/devices/platform/fake-\(name)-\(index)/iio:device\(index)" }
    var node: String { "/dev/iio:device\(index)" }

    var description: String {
        var lines = ["P: /devices/platform/fake-\(name)-\(index)/iio:device\(index)"]
        if buffered { lines.append("N: iio:device\(index)") }
        lines += ["E: DEVNAME=/dev/iio:device\(index)", "E: DEVTYPE=iio_device", "E: SUBSYSTEM=iio",
                  "E: MAJOR=243", "E: MINOR=\(index)"]
        for (key, value) in udev.sorted(by: { $0.key < $1.key }) { lines.append("E: \(key)=\(value)") }
        func attr(_ name: String, _ value: String) { lines.append("A: \(name)=\(value)\\n") }
        attr("dev", "243:\(index)")
        attr("name", name)
        attr("sampling_frequency", samplingFrequency)
        let values = [raw.0, raw.1, raw.2]
        var channelIndex = 0
        func family(_ kind: String, _ format: String, _ scale: String?, _ offset: String?) {
            for (k, axis) in ["x", "y", "z"].enumerated() {
                if rawAttributes { attr("in_\(kind)_\(axis)_raw", "\(values[k])") }
                if buffered {
                    attr("scan_elements/in_\(kind)_\(axis)_en", "0")
                    attr("scan_elements/in_\(kind)_\(axis)_index", "\(channelIndex)")
                    attr("scan_elements/in_\(kind)_\(axis)_type", format)
                    channelIndex += 1
                }
            }
            if kind == self.kind, let axisScales {
                for (axis, value) in zip(["x", "y", "z"], axisScales) { attr("in_\(kind)_\(axis)_scale", value) }
            } else if let scale {
                attr("in_\(kind)_scale", scale)
            }
            if let offset { attr("in_\(kind)_offset", offset) }
        }
        family(kind, format, scale, offset)
        if let gyro { family("anglvel", gyro.format, gyro.scale, nil) }
        if buffered {
            if timestamp {
                attr("scan_elements/in_timestamp_en", "0")
                attr("scan_elements/in_timestamp_index", "\(channelIndex)")
                attr("scan_elements/in_timestamp_type", "le:s64/64>>0")
            }
            attr("buffer/enable", "0")
            attr("buffer/length", "0")
        }
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) { attr(key, value) }
        return lines.joined(separator: "\n") + "\n\n"
    }

    struct ScanType {
        let bigEndian: Bool
        let signed: Bool
        let bits: Int
        let storage: Int
        let shift: Int

        /// Parses `le:s12/16>>4`.
        init(_ text: String) {
            bigEndian = text.hasPrefix("be")
            let rest = text.split(separator: ":")[1]
            signed = rest.hasPrefix("s")
            let numbers = rest.dropFirst().split(whereSeparator: { $0 == "/" || $0 == ">" }).compactMap { Int($0) }
            bits = numbers[0]
            storage = numbers[1]
            shift = numbers.count > 2 ? numbers[2] : 0
        }

        func bytes(_ value: Int) -> [UInt8] {
            let mask: UInt64 = bits == 64 ? .max : (1 << UInt64(bits)) - 1
            let raw = (UInt64(bitPattern: Int64(value)) & mask) << UInt64(shift)
            let little = (0..<(storage / 8)).map { UInt8(truncatingIfNeeded: raw >> UInt64(8 * $0)) }
            return bigEndian ? little.reversed() : little
        }
    }

    /// One scan (one sample of every enabled channel), with the kernel's alignment rules: each
    /// element aligned to its storage size.
    func scan(_ values: [Int], timestampNanoseconds: Int64) -> [UInt8] {
        var types = Array(repeating: ScanType(format), count: 3)
        if let gyro { types += Array(repeating: ScanType(gyro.format), count: 3) }
        var out: [UInt8] = []
        for (type, value) in zip(types, values) {
            let size = type.storage / 8
            while out.count % size != 0 { out.append(0) }
            out += type.bytes(value)
        }
        if timestamp {
            while out.count % 8 != 0 { out.append(0) }
            out += ScanType("le:s64/64>>0").bytes(Int(timestampNanoseconds))
        }
        return out
    }
}
