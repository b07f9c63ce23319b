import Glibc
import SensorDeviceAccess

/// Plain reads and writes of sysfs attributes, for the few places libiio does not fit.
///
/// libiio 0.24 takes an attribute's last byte for the kernel's newline and drops it; the kernel
/// always writes one, but a value without it (a hand-made umockdev fixture, such as
/// iio-sensor-proxy's own acceptance suite uses) reads as `-25.` for `-25.6` and fails for `0`.
/// These reads stop at the first newline or NUL and trim spaces, so both forms read the same.
/// Writes replace the whole value (`O_TRUNC`: under umockdev an attribute is a regular file;
/// sysfs ignores the flag) and add nothing (libiio adds a NUL byte).
/// Blocking file I/O: call from an owner thread.
enum SysfsAttribute {
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

    /// The attribute as a number, or `nil`: the same rules as ``read(_:)`` and `Double(_:)`,
    /// but from bytes on the stack to `strtod`, without a `String`. A polled reader calls it for
    /// every axis of every reading, and a claimed daemon's resident memory is the code it keeps
    /// running (issue 28): string building, trimming and parsing would touch several hundred kB
    /// of the standard library per reading.
    static func number(_ path: String) -> Double? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buffer -> Double? in
            guard let base = buffer.baseAddress else { return nil }
            let count = Glibc.read(fd, base, buffer.count - 1)
            guard count > 0 else { return nil }
            // The first line, without spaces or tabs around it.
            var end = 0
            while end < count, base[end] != 0, base[end] != 10 { end += 1 }
            var start = 0
            while start < end, base[start] == 32 || base[start] == 9 { start += 1 }
            while end > start, base[end - 1] == 32 || base[end - 1] == 9 { end -= 1 }
            guard end > start else { return nil }
            base[end] = 0
            var stop: UnsafeMutablePointer<CChar>? = nil
            let value = strtod(base + start, &stop)
            // The whole text must be the number ("12 34", "1.5.2" and "0,5" are not).
            guard let stop, stop == base + end else { return nil }
            return value
        }
    }

    /// Writes `text` as the whole value; false when the attribute refuses it.
    static func write(_ path: String, _ text: String) -> Bool {
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        return Glibc.write(fd, bytes, bytes.count) == bytes.count
    }

    /// The path of a channel attribute as the kernel names it (``IIOChannelAttributeName``: the
    /// axis's own `in_accel_x_scale`, else shared by type `in_accel_scale`, by direction
    /// `in_scale`, by all `scale`), or `nil` when none exists.
    static func channelPath(_ directory: String, family: String, axis: String, _ attribute: String) -> String? {
        channelPath(directory, channel: "in_\(family)_\(axis)", attribute)
    }

    /// The same for any channel prefix (`in_rot_from_north_magnetic_tilt_comp`, `in_intensity_both`).
    static func channelPath(_ directory: String, channel: String, _ attribute: String) -> String? {
        IIOChannelAttributeName(channel)?.resolve(attribute) { access(directory + "/" + $0, F_OK) == 0 }
            .map { directory + "/" + $0 }
    }
}
