import CLibIIO
import CLibUdev
import Glibc
import Testing

/// Proves `CLibUdev` resolves through pkg-config and links against the real library, and that
/// `CLibIIO`'s loader reaches the real libiio through dlopen (the SensorIIO module builds on both).
@Suite struct SystemLibraryLinkTests {
    /// The first call loads libiio.so.0 and forwards: a local context (empty without IIO devices)
    /// comes back, not ENOSYS, and libiio is then mapped in this process.
    @Test func theLoaderReachesLibiio() throws {
        errno = 0
        let context = iio_create_local_context()
        #expect(context != nil || errno != ENOSYS, "libiio.so.0 did not load (ENOSYS)")
        if let context {
            _ = iio_context_get_devices_count(context)
            iio_context_destroy(context)
        }
        let maps = String(decoding: readAll("/proc/self/maps").map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(maps.contains("libiio.so.0"), "libiio is mapped once called")
    }

    @Test func libudevCreatesAContext() throws {
        let udev = try #require(udev_new())
        defer { udev_unref(udev) }
        let enumerate = try #require(udev_enumerate_new(udev))
        defer { udev_enumerate_unref(enumerate) }
        #expect(udev_enumerate_add_match_subsystem(enumerate, "iio") == 0)
    }
}

/// The bytes of a file (procfs: read until the end, whatever `st_size` says); none if it cannot
/// be opened.
func readAll(_ path: String) -> [CChar] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return [] }
    defer { close(fd) }
    var bytes: [CChar] = []
    var chunk = [CChar](repeating: 0, count: 65536)
    while true {
        let count = read(fd, &chunk, chunk.count)
        if count <= 0 { break }
        bytes += chunk[..<count]
    }
    return bytes
}
