import CUMockdev
import Glibc

/// A umockdev testbed: fake /sys and /dev for this process (umockdev-wrapper's preload library
/// redirects libudev's and libiio's file accesses into it).
///
/// Traps (docs/TESTING.md, ../shared/NOTES-umockdev.md): every attribute value in a description
/// ends in `\n`; only descriptions with an `N:` line get a /dev node (a PTY); the state is
/// process-global, so tests using it are serialized and run in their own process.
final class Testbed {
    let pointer: UnsafeMutablePointer<UMockdevTestbed>

    /// True when the process runs under umockdev's preload library.
    static var isAvailable: Bool {
        guard let preload = getenv("LD_PRELOAD") else { return false }
        return String(cString: preload).contains("umockdev")
    }

    init() {
        pointer = umockdev_testbed_new()
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(pointer))
    }

    /// Adds devices from a umockdev description (`P:`, `N:`, `E:`, `A:` lines).
    func add(_ description: String) throws {
        var error: UnsafeMutablePointer<GError>? = nil
        guard umockdev_testbed_add_from_string(pointer, description, &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            throw TestbedError(description: "umockdev rejected the description: \(message)")
        }
    }

    func remove(_ syspath: String) {
        umockdev_testbed_remove_device(pointer, syspath)
    }

    func uevent(_ syspath: String, _ action: String) {
        umockdev_testbed_uevent(pointer, syspath, action)
    }

    /// Writes a sysfs attribute. End `value` with "\n" as the kernel does where libiio reads it
    /// (buffered devices' setup): libiio's local backend drops an attribute's last byte,
    /// assuming it is the newline, so "-100" reads as "-10" and "0" as "" (EINVAL). The polled
    /// reader reads sysfs itself (SysfsAttribute) and takes either. GLib readers
    /// (iio-sensor-proxy) do not notice.
    func setAttribute(_ syspath: String, _ name: String, _ value: String) {
        umockdev_testbed_set_attribute(pointer, syspath, name, value)
    }

    /// The value of a sysfs attribute as the testbed holds it (read outside the redirection).
    func attribute(_ syspath: String, _ name: String) -> String? {
        guard let root = umockdev_testbed_get_root_dir(pointer) else { return nil }
        defer { g_free(root) }
        let path = String(cString: root) + syspath + "/" + name
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 256)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return "" }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Where the testbed keeps a sysfs attribute's file (outside the redirection), for a test
    /// that watches it (inotify).
    func path(_ syspath: String, _ name: String) -> String? {
        guard let root = umockdev_testbed_get_root_dir(pointer) else { return nil }
        defer { g_free(root) }
        return String(cString: root) + syspath + "/" + name
    }

    /// The master side of the PTY behind a /dev node: bytes written here are what reads of the
    /// device node return.
    func deviceFD(_ node: String) -> Int32 {
        umockdev_testbed_get_dev_fd(pointer, node)
    }
}

struct TestbedError: Error, CustomStringConvertible {
    let description: String
}

/// Writes all bytes to a descriptor.
func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
        let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n <= 0 { return }
        offset += n
    }
}

/// Sets a udev property of a testbed device.
func umockdev_set_property(_ testbed: Testbed, _ syspath: String, _ name: String, _ value: String) {
    umockdev_testbed_set_property(testbed.pointer, syspath, name, value)
}
