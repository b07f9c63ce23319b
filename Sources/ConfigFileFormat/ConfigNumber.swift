/// The one syntax of a number in orientationd's configuration file and in `--set` assignments:
/// a plain decimal, `[+-]digits[.digits][e[+-]digits]` (or `.digits`), nothing else.
///
/// Swift's `Double(String)` is C's `strtod`: it reads hexadecimal (`0x10` is 16), `inf`, `nan`
/// and `infinity`, and stops at a NUL byte (`0\0 5` is 0). A configuration read that way says
/// something other than what its owner sees in an editor; every section's reader parses its
/// numbers here instead (issue 38).
public enum ConfigNumber {
    /// `text` as a finite decimal number, or `nil` when it is anything else (hexadecimal, a
    /// control character or NUL anywhere, `inf`, `nan`, a sign alone, an empty string, a value
    /// beyond `Double`'s range).
    public static func decimal(_ text: some StringProtocol) -> Double? {
        let bytes = Array(text.utf8)
        var i = 0
        func digits() -> Int {
            let start = i
            while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
            return i - start
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
        var mantissa = digits()
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            mantissa += digits()
        }
        guard mantissa > 0 else { return nil }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return nil }
        }
        guard i == bytes.count, let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }
}
