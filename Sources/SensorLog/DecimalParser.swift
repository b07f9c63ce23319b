/// Locale-independent parsing of the v1 number syntax straight from bytes.
///
/// Grammar: `[+-]digits[.digits][(e|E)[+-]digits]` or `[+-].digits[(e|E)[+-]digits]`.
/// Results are bit-for-bit what `Double(String)` returns for the same text: up to 19 significant
/// digits are accumulated in a `UInt64`; when the mantissa is ≤ 2^53 and the decimal exponent is
/// within ±22, one exact multiplication or division gives the correctly rounded result (Clinger's
/// fast path); everything else goes through `Double(String)`.
enum DecimalParser {
    @inline(__always)
    static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }

    /// Exact powers of ten representable in a Double.
    @inline(__always)
    static func pow10(_ e: Int) -> Double {
        switch e {
        case 0: 1e0
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }

    /// Parses the longest number syntax starting at `start` (no leading spaces).
    ///
    /// Returns the value and the index just after the number, or `nil` when the bytes from `start`
    /// do not begin with a complete number (e.g. `"."`, `"1."`, `"1e"`, `"abc"`). The caller checks
    /// what follows the number.
    @inline(__always)
    static func parse(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> (value: Double, next: Int)? {
        var i = start
        var negative = false
        if i < end {
            let c = p[i]
            if c == UInt8(ascii: "-") {
                negative = true
                i += 1
            } else if c == UInt8(ascii: "+") {
                i += 1
            }
        }
        var mantissa: UInt64 = 0
        var significant = 0
        var exp10 = 0
        var truncated = false
        let intStart = i
        while i < end {
            let d = p[i] &- 0x30
            if d >= 10 { break }
            if significant < 19 {
                if mantissa != 0 || d != 0 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    significant += 1
                }
            } else {
                exp10 += 1
                if d != 0 { truncated = true }
            }
            i += 1
        }
        let intDigits = i - intStart
        var fracDigits = 0
        if i < end && p[i] == UInt8(ascii: ".") {
            i += 1
            let fracStart = i
            while i < end {
                let d = p[i] &- 0x30
                if d >= 10 { break }
                if significant < 19 {
                    if mantissa != 0 || d != 0 {
                        mantissa = mantissa &* 10 &+ UInt64(d)
                        significant += 1
                    }
                    exp10 -= 1
                } else if d != 0 {
                    truncated = true
                }
                i += 1
            }
            fracDigits = i - fracStart
            if fracDigits == 0 { return nil }
        }
        if intDigits == 0 && fracDigits == 0 { return nil }
        if i < end && (p[i] == UInt8(ascii: "e") || p[i] == UInt8(ascii: "E")) {
            i += 1
            var expNegative = false
            if i < end {
                if p[i] == UInt8(ascii: "-") {
                    expNegative = true
                    i += 1
                } else if p[i] == UInt8(ascii: "+") {
                    i += 1
                }
            }
            let expStart = i
            var e = 0
            while i < end {
                let d = p[i] &- 0x30
                if d >= 10 { break }
                if e < 1_000_000 { e = e * 10 + Int(d) }
                i += 1
            }
            if i == expStart { return nil }
            exp10 += expNegative ? -e : e
        }
        if mantissa == 0 { return (negative ? -0.0 : 0.0, i) }
        if !truncated && mantissa <= 1 << 53 && exp10 >= -22 && exp10 <= 22 {
            var value = Double(mantissa)
            if exp10 >= 0 {
                value *= pow10(exp10)
            } else {
                value /= pow10(-exp10)
            }
            return (negative ? -value : value, i)
        }
        let text = String(decoding: UnsafeBufferPointer(start: p + start, count: i - start), as: UTF8.self)
        guard let value = Double(text) else { return nil }
        return (value, i)
    }

    /// Parses `bytes` as exactly one number (no surrounding spaces); `nil` if it is not one.
    static func parse(_ bytes: [UInt8]) -> Double? {
        bytes.withUnsafeBufferPointer { buffer -> Double? in
            guard let base = buffer.baseAddress,
                  let (value, next) = parse(base, 0, buffer.count),
                  next == buffer.count else { return nil }
            return value
        }
    }

    /// Matches `nan`, `inf` or `infinity` (any case, optional sign) over exactly `p[start..<end]`.
    static func parseSpecial(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        var i = start
        var negative = false
        if i < end && (p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+")) {
            negative = p[i] == UInt8(ascii: "-")
            i += 1
        }
        let count = end - i
        guard count == 3 || count == 8 else { return nil }
        var word: [UInt8] = []
        word.reserveCapacity(count)
        for j in i..<end { word.append(p[j] | 0x20) }  // ASCII lower-case (letters only matter)
        if word == Array("nan".utf8) { return Double.nan }
        if word == Array("inf".utf8) || word == Array("infinity".utf8) {
            return negative ? -Double.infinity : Double.infinity
        }
        return nil
    }
}
