import Glibc
@testable import SensorIIO
import Testing
import TestSupport

/// Sysfs numbers read directly, with or without the kernel's trailing newline (libiio 0.24 drops
/// the last byte whatever it is: `-25.6` read through it is `-25.`, and `0` is nothing), and
/// written whole.
@Suite struct SysfsAttributeTests {
    static func file(_ contents: String) -> String {
        let path = temporaryDirectory("sysfs-attribute") + "/in_accel_x_raw"
        writeText(path, contents)
        return path
    }

    @Test(arguments: [
        ("-25.6", -25.6), ("-25.6\n", -25.6), ("0", 0), ("0\n", 0), ("10", 10), ("0.000010\n", 0.00001),
        ("-256000000", -256_000_000), ("1e3\n", 1000), (" 12.5 \n", 12.5), ("12.5\0garbage", 12.5),
    ] as [(String, Double)])
    func numbersRead(_ text: String, _ expected: Double) {
        #expect(SysfsAttribute.number(Self.file(text)) == expected)
    }

    /// A comma is never a decimal point (sysfs is not localised), and words are not numbers.
    @Test(arguments: ["", "\n", "0,5", "abc", "12 34", "1.5.2"])
    func nonNumbersDoNotRead(_ text: String) {
        #expect(SysfsAttribute.number(Self.file(text)) == nil)
    }

    @Test func aMissingFileIsNoNumber() {
        #expect(SysfsAttribute.number("/nonexistent/in_accel_x_raw") == nil)
    }

    /// A write replaces the whole value (under umockdev an attribute is a plain file: `10` over
    /// `5.2\n` without O_TRUNC read back `102`).
    @Test func aWriteReplacesTheValue() {
        let path = Self.file("5.2\n")
        #expect(SysfsAttribute.write(path, "10"))
        #expect(readText(path) == "10")
    }
}
