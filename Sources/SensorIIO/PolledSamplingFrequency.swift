import Glibc

/// Sets a polled accelerometer's sampling frequency through sysfs, as iio-sensor-proxy does
/// when it opens one: the user's configured value, else ``SamplingFrequencyFloor``'s raise of a
/// driver below 10 Hz.
///
/// Contract of ``apply(sysfsPath:configured:)``:
/// - The device's `sampling_frequency` is used, else `in_accel_sampling_frequency`; a device
///   with neither is left alone (`nil`).
/// - A configured value is written unless the driver already reports it; without one, the floor
///   decides from the current value and the matching `…_available` list.
/// - The value is written as the peer writes it: the number alone (`10`, `12.5`), no newline,
///   with plain `write(2)` (libiio would add a NUL byte). A refused write is reported in the
///   result (`written` false) and changes nothing else: reading still works, only slower.
/// - Blocking file I/O: call it on an owner thread.
public enum PolledSamplingFrequency {
    public struct Change: Sendable, Equatable {
        /// The attribute's name (`sampling_frequency`).
        public var attribute: String
        public var from: String
        public var to: String
        public var written: Bool
    }

    public static func apply(sysfsPath: String, configured: Double?) -> Change? {
        for name in ["sampling_frequency", "in_accel_sampling_frequency"] {
            guard let current = read(sysfsPath + "/" + name) else { continue }
            let value: Double?
            if let configured {
                value = Double(current) == configured ? nil : configured
            } else {
                value = SamplingFrequencyFloor.choose(current: Double(current), available: read(sysfsPath + "/" + name + "_available"))
            }
            guard let value else { return nil }
            let text = SamplingFrequencyFloor.text(value)
            return Change(attribute: name, from: current, to: text, written: write(sysfsPath + "/" + name, text))
        }
        return nil
    }

    /// The attribute's first line, trimmed; `nil` when it cannot be read or is empty.
    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = Glibc.read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count].prefix { $0 != 0 && $0 != 10 }, as: UTF8.self).trimmingCharacters(in: " \t")
        return text.isEmpty ? nil : text
    }

    static func write(_ path: String, _ text: String) -> Bool {
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)  // a regular file under umockdev; sysfs ignores O_TRUNC
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        return Glibc.write(fd, bytes, bytes.count) == bytes.count
    }
}
