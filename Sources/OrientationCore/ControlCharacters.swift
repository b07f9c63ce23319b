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

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
