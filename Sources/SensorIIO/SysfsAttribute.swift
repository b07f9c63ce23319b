import CLibIIO
import Glibc

/// Reads one IIO sysfs attribute as a number, directly (open, read, close on the calling thread).
///
/// Why not `iio_channel_attr_read_double`: libiio 0.24's local backend takes the attribute's last
/// byte for the kernel's newline and drops it unseen, so a value written without one (`-25.6`,
/// `0`, as umockdev testbeds, iio-sensor-proxy's own test suite and some out-of-tree drivers
/// write them) reads as `-25.` or as nothing. Here only trailing whitespace is dropped.
///
/// Parsing is locale-independent (`.` is the decimal point whatever `LC_NUMERIC` says), as the
/// kernel writes it.
enum SysfsAttribute {
    /// The file behind a libiio channel attribute (`raw` → `/sys/bus/iio/devices/D/in_accel_x_raw`;
    /// a shared `scale` → `…/in_accel_scale`), or `nil` when the channel has no such attribute.
    static func path(device id: String, channel: OpaquePointer, attribute: String) -> String? {
        guard let file = iio_channel_attr_get_filename(channel, attribute) else { return nil }
        return "/sys/bus/iio/devices/\(id)/\(String(cString: file))"
    }

    /// The attribute's value, or the errno of the failed read (`EINVAL` when it is not a number).
    static func readDouble(_ path: String) -> Result<Double, IIOErrno> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(IIOErrno(errno)) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { return .failure(IIOErrno(errno)) }
        return parse(buffer[..<count]).map(Result.success) ?? .failure(IIOErrno(EINVAL))
    }

    /// A number as sysfs writes it, with or without the trailing newline (surrounding
    /// whitespace and NULs are ignored; anything else makes it not a number).
    static func parse(_ bytes: some Collection<UInt8>) -> Double? {
        Double(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: " \t\n\0"))
    }
}

/// An errno from a sysfs read.
struct IIOErrno: Error, Equatable {
    let code: Int32
    init(_ code: Int32) { self.code = code }
}
