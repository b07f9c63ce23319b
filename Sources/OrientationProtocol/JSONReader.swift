/// A strict RFC 8259 JSON parser for one protocol line.
///
/// Contract: never crashes, never recurses deeper than ``maximumDepth``, rejects trailing
/// garbage, invalid UTF-8, lone surrogates, control characters in strings, duplicate object
/// members, and numbers that are not finite. Errors say what was wrong and at which byte.
public struct JSONReader {
    /// Deepest nesting accepted (the protocol needs 2).
    public static let maximumDepth = 32

    public struct Error: Swift.Error, Hashable, Sendable, CustomStringConvertible {
        /// 0-based byte offset in the line.
        public var offset: Int
        public var message: String
        public var description: String { "\(message) at byte \(offset)" }
    }

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Parses exactly one JSON value (surrounded by optional white space).
    public static func parse(_ bytes: some Collection<UInt8>) throws(Error) -> JSONValue {
        var reader = JSONReader(Array(bytes))
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == reader.bytes.count else { throw reader.error("unexpected data after the JSON value") }
        return value
    }

    /// Parses a string's UTF-8.
    public static func parse(_ text: String) throws(Error) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private func error(_ message: String) -> Error { Error(offset: index, message: message) }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let b = peek, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { index += 1 }
    }

    private mutating func expect(_ literal: StaticString, _ value: JSONValue) throws(Error) -> JSONValue {
        let text = literal.withUTF8Buffer { Array($0) }
        guard index + text.count <= bytes.count, Array(bytes[index..<index + text.count]) == text else {
            throw error("invalid literal")
        }
        index += text.count
        return value
    }

    private mutating func value(depth: Int) throws(Error) -> JSONValue {
        guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
        guard let b = peek else { throw error("unexpected end of input") }
        switch b {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character")
        }
    }

    private mutating func object(depth: Int) throws(Error) -> JSONValue {
        index += 1
        var members: [(String, JSONValue)] = []
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
            let start = index
            let key = try string()
            if members.contains(where: { $0.0 == key }) {
                throw Error(offset: start, message: "duplicate member \"\(key)\"")
            }
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
            index += 1
            skipWhitespace()
            members.append((key, try value(depth: depth + 1)))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default: throw error("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func array(depth: Int) throws(Error) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth + 1))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: throw error("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func hex4() throws(Error) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func string() throws(Error) -> String {
        index += 1  // opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ reader: JSONReader, upTo end: Int) throws(Error) {
            guard runStart < end else { return }
            guard let text = String(validating: reader.bytes[runStart..<end], as: UTF8.self) else {
                throw Error(offset: runStart, message: "invalid UTF-8 in a string")
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard let b = peek else { throw error("unterminated string") }
            switch b {
            case UInt8(ascii: "\""):
                try flush(self, upTo: index)
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flush(self, upTo: index)
                index += 1
                guard let e = peek else { throw error("unterminated escape") }
                index += 1
                switch e {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("lone high surrogate in \\u escape")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate in \\u escape") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        throw error("lone low surrogate in \\u escape")
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                    scalars.append(scalar)
                default:
                    throw Error(offset: index - 1, message: "invalid escape")
                }
                runStart = index
            case 0x00..<0x20:
                throw error("control character in a string")
            default:
                index += 1
            }
        }
    }

    /// A number: `.number` when a `Double` writes it back as it was written, else
    /// `.exactNumber` keeping the text (an id must come back exactly as sent).
    private mutating func number() throws(Error) -> JSONValue {
        let start = index
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { throw error("invalid number") }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            while let d = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(d) { index += 1 }
        }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard let d = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(d) else { throw error("digit expected after '.'") }
            while let d = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(d) { index += 1 }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard let d = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(d) else { throw error("digit expected in exponent") }
            while let d = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(d) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw Error(offset: start, message: "number out of range") }
        return JSONWriter.number(value) == text ? .number(value) : .exactNumber(text)
    }
}
