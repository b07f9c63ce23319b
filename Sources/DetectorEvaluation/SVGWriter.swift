import SensorLog

/// Builds an SVG document as text: elements with escaped attributes and text, numbers with
/// fixed decimals, so the same drawing always gives byte-identical output.
struct SVGWriter {
    private(set) var text = ""

    init(width: Double, height: Double) {
        text += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Self.number(width))\" height=\"\(Self.number(height))\" "
        text += "viewBox=\"0 0 \(Self.number(width)) \(Self.number(height))\" font-family=\"sans-serif\" font-size=\"11\">\n"
    }

    /// An element without children: `<name a="v" …/>`.
    mutating func element(_ name: String, _ attributes: [(String, String)], title: String? = nil) {
        text += "<\(name)\(Self.attributes(attributes))"
        if let title {
            text += "><title>\(Self.escape(title))</title></\(name)>\n"
        } else {
            text += "/>\n"
        }
    }

    /// A text element.
    mutating func label(_ content: String, x: Double, y: Double, _ attributes: [(String, String)] = []) {
        text += "<text x=\"\(Self.number(x))\" y=\"\(Self.number(y))\"\(Self.attributes(attributes))>\(Self.escape(content))</text>\n"
    }

    /// Opens a group; close it with ``close(_:)``.
    mutating func open(_ name: String, _ attributes: [(String, String)] = []) {
        text += "<\(name)\(Self.attributes(attributes))>\n"
    }

    mutating func close(_ name: String) {
        text += "</\(name)>\n"
    }

    /// Ends the document and returns it.
    mutating func finish() -> String {
        text += "</svg>\n"
        return text
    }

    static func attributes(_ attributes: [(String, String)]) -> String {
        attributes.map { " \($0.0)=\"\(escape($0.1))\"" }.joined()
    }

    /// Escapes the five XML special characters and drops characters XML 1.0 cannot carry.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            case "\u{0}"..."\u{1F}", "\u{FFFE}", "\u{FFFF}": out += "?"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Fixed one decimal (pixels), `-0.0` printed as `0.0`.
    static func number(_ value: Double) -> String {
        fixed(value, decimals: 1)
    }

    /// Fixed decimals (the project's one exact formatter); non-finite values print as 0, which
    /// SVG accepts where `nan` would break the document.
    static func fixed(_ value: Double, decimals: Int) -> String {
        value.isFinite ? FixedPointFormatter.string(value, decimals: decimals) : "0"
    }
}
