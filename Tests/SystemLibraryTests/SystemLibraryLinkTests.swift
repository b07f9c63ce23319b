import CLibIIO
import CLibUdev
import Testing

/// Proves the `CLibIIO` and `CLibUdev` system-library targets resolve through pkg-config, compile
/// and link against the real libraries (the later SensorIIO module builds on both).
@Suite struct SystemLibraryLinkTests {
    @Test func libiioReportsItsVersion() {
        var major: UInt32 = 0, minor: UInt32 = 0
        var tag = [CChar](repeating: 0, count: 8)
        iio_library_get_version(&major, &minor, &tag)
        #expect(major == 0 || major == 1)
        #expect(minor > 0 || major > 0)
    }

    @Test func libudevCreatesAContext() throws {
        let udev = try #require(udev_new())
        defer { udev_unref(udev) }
        let enumerate = try #require(udev_enumerate_new(udev))
        defer { udev_enumerate_unref(enumerate) }
        #expect(udev_enumerate_add_match_subsystem(enumerate, "iio") == 0)
    }
}
