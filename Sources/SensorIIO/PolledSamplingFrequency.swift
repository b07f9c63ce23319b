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
/// - The value is written as the peer writes it: the number alone (`10`, `12.5`), no newline
///   (``SysfsAttribute``; libiio would add a NUL byte). A refused write is reported in the
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

    static func read(_ path: String) -> String? { SysfsAttribute.read(path) }

    static func write(_ path: String, _ text: String) -> Bool { SysfsAttribute.write(path, text) }
}
