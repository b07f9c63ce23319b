/// Makes text from files and clients safe to print in a terminal or a journal: control
/// characters (C0, DEL, C1) become visible `\u{1B}` escapes instead of acting on the terminal
/// (a configuration file full of binary garbage must not clear the screen that shows the error).
public enum ControlCharacters {
    /// `text` with every control character written as `\u{XX}`; everything else unchanged.
    public static func escaped(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return String(text) }
        var out = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u{" + (hex.count < 2 ? "0" + hex : hex) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The most characters of a user's text any message quotes by default (issue 18: a 1 MB
    /// unknown configuration key was logged whole, as one line).
    public static let defaultQuoteLimit = 64

    /// `text` made safe to quote in an error or a log line: control characters escaped as by
    /// ``escaped(_:)``, and only the first `limit` characters (Unicode scalars) of `text` kept,
    /// followed by `… (N more characters)` when it was longer. The one place every message that
    /// echoes a user's text (configuration, logs, imported cells, client requests) bounds it.
    /// Costs O(`limit`) plus a count of the rest, never a copy of it.
    public static func quoted(_ text: some StringProtocol, limit: Int = defaultQuoteLimit) -> String {
        var head = String.UnicodeScalarView()
        var kept = 0, rest = 0
        for scalar in text.unicodeScalars {
            if kept < limit {
                head.append(scalar)
                kept += 1
            } else {
                rest += 1
            }
        }
        guard rest > 0 else { return escaped(String(head)) }
        return escaped(String(head)) + "… (\(rest) more character\(rest == 1 ? "" : "s"))"
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
