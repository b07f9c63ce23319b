/// Serialises ``JSONValue``s compactly (no spaces), one line, with members in order.
///
/// Contract: output is valid JSON and UTF-8; strings escape `"`, `\` and control characters;
/// numbers that are whole and below 2⁵³ print without a fraction (`seq` reads as `42`), others
/// with the shortest representation that round-trips. Non-finite numbers become `null`.
public enum JSONWriter {
    public static func serialize(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out)
        return out
    }

    static func write(_ value: JSONValue, into out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += number(n)
        case .exactNumber(let text): out += text
        case .string(let s): string(s, into: &out)
        case .array(let elements):
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                write(element, into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, (key, element)) in members.enumerated() {
                if i > 0 { out += "," }
                string(key, into: &out)
                out += ":"
                write(element, into: &out)
            }
            out += "}"
        }
    }

    static func number(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n == n.rounded(), abs(n) < 9_007_199_254_740_992 { return String(Int64(n)) }
        return "\(n)"  // Swift prints the shortest round-tripping form, e.g. 0.1, 1e-07
    }

    static func string(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{00}"..."\u{1F}", "\u{7F}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
