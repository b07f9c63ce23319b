/// Fixed-point decimal formatting of Doubles, without Foundation or C `printf`.
///
/// Rounds the exact binary value half away from zero to the requested number of decimals (integer
/// arithmetic on the double's significand, so no double-rounding). Values with magnitude ≥ 9e18
/// fall back to Swift's shortest round-trip form (e.g. `1e+19`), which the reader also accepts.
/// A result that rounds to zero is printed without a minus sign; non-finite values print as
/// `nan`, `inf` and `-inf`.
package enum FixedPointFormatter {
    static func powerOfTen(_ n: Int) -> UInt64 {
        var result: UInt64 = 1
        for _ in 0..<n { result *= 10 }
        return result
    }

    /// Appends `value` with exactly `decimals` (0...18) digits after the point.
    static func append(_ value: Double, decimals: Int, to out: inout [UInt8]) {
        precondition(decimals >= 0 && decimals <= 18)
        if value.isNaN {
            out.append(contentsOf: "nan".utf8)
            return
        }
        if value.isInfinite {
            out.append(contentsOf: (value < 0 ? "-inf" : "inf").utf8)
            return
        }
        let magnitude = value.magnitude
        if magnitude >= 9e18 {
            out.append(contentsOf: value.description.utf8)
            return
        }
        var integer = UInt64(magnitude)  // truncation; exact
        let fraction = magnitude - Double(integer)  // exact: magnitude and its floor share an exponent range
        let scale = powerOfTen(decimals)
        var scaled: UInt64 = 0
        if fraction > 0 {
            // fraction = significand × 2^-shift exactly, with a 53-bit significand.
            let significand = UInt64(fraction.significandBitPattern) | (fraction.isNormal ? 1 << 52 : 0)
            let shift = 52 - Int(fraction.exponent)
            if fraction.isNormal && shift < 127 {
                let product = UInt128(significand) * UInt128(scale)
                let quotient = product >> UInt128(shift)
                let remainder = product & ((UInt128(1) << UInt128(shift)) - 1)
                let half = UInt128(1) << UInt128(shift - 1)
                scaled = UInt64(quotient) + (remainder >= half ? 1 : 0)
            }
            if scaled == scale {
                integer += 1
                scaled = 0
            }
        }
        if value < 0 && (integer != 0 || scaled != 0) { out.append(UInt8(ascii: "-")) }
        appendDigits(integer, minimumCount: 1, to: &out)
        if decimals > 0 {
            out.append(UInt8(ascii: "."))
            appendDigits(scaled, minimumCount: decimals, to: &out)
        }
    }

    /// The formatted text, for tests, messages and the tools (`package`: the one fixed-point
    /// formatter of the project).
    package static func string(_ value: Double, decimals: Int) -> String {
        var out: [UInt8] = []
        append(value, decimals: decimals, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func appendDigits(_ value: UInt64, minimumCount: Int, to out: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)  // 40 bytes scratch
        withUnsafeMutableBytes(of: &digits) { scratch in
            var v = value
            var count = 0
            repeat {
                scratch[39 - count] = UInt8(truncatingIfNeeded: v % 10) + 0x30
                v /= 10
                count += 1
            } while v != 0 || count < minimumCount
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[(40 - count)...]))
        }
    }
}
