import Glibc

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

    /// The attribute as a number, or `nil`.
    static func number(_ path: String) -> Double? {
        read(path).flatMap { Double($0) }
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
