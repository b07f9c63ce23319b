import Glibc
@testable import SensorIIO
import Testing

/// Sysfs numbers read directly, with or without the kernel's trailing newline (libiio 0.24 drops
/// the last byte whatever it is: `-25.6` read through it is `-25.`, and `0` is nothing).
@Suite struct SysfsAttributeTests {
    @Test(arguments: [
        ("-25.6", -25.6), ("-25.6\n", -25.6), ("0", 0), ("0\n", 0), ("10", 10), ("0.000010\n", 0.00001),
        ("-256000000", -256_000_000), ("1e3\n", 1000), (" 12.5 \n\0", 12.5),
    ] as [(String, Double)])
    func numbersParse(_ text: String, _ expected: Double) {
        #expect(SysfsAttribute.parse(Array(text.utf8)) == expected)
    }

    /// A comma is never a decimal point (sysfs is not localised), and words are not numbers.
    @Test(arguments: ["", "\n", "0,5", "abc", "12 34", "1.5.2"])
    func nonNumbersDoNotParse(_ text: String) {
        #expect(SysfsAttribute.parse(Array(text.utf8)) == nil)
    }

    @Test func aMissingFileIsItsErrno() {
        #expect(SysfsAttribute.readDouble("/nonexistent/in_accel_x_raw") == .failure(IIOErrno(ENOENT)))
    }
}
