import OrientationProtocol
import Testing

@Suite struct JSONTests {
    static let valid: [(String, JSONValue)] = [
        ("{}", .object([])),
        ("[]", .array([])),
        (" {\"op\" : \"get\"} ", .object([("op", .string("get"))])),
        ("{\"a\":[1,-2.5,3e2,true,false,null]}", .object([("a", .array([.number(1), .number(-2.5), .number(300), .bool(true), .bool(false), .null]))])),
        ("\"\\u00e9\\ud83d\\ude00\\n\\t\\\\\\\"\\/\"", .string("é😀\n\t\\\"/")),
        ("\"ünïcødé\"", .string("ünïcødé")),
        ("0", .number(0)),
        ("-0.0", .number(-0.0)),
    ]

    @Test(arguments: valid.indices)
    func parsesValidJSON(_ index: Int) throws {
        let (text, expected) = Self.valid[index]
        #expect(try JSONReader.parse(text) == expected)
    }

    static let invalid: [(String, String)] = [
        ("", "unexpected end of input at byte 0"),
        ("{", "expected a member name in quotes at byte 1"),
        ("{\"op\":}", "unexpected character at byte 6"),
        ("{\"op\":\"get\"} x", "unexpected data after the JSON value at byte 13"),
        ("{\"a\":1,\"a\":2}", "duplicate member \"a\" at byte 7"),
        ("[1,]", "unexpected character at byte 3"),
        ("01", "unexpected data after the JSON value at byte 1"),
        ("1.", "digit expected after '.' at byte 2"),
        ("1e999", "number out of range at byte 0"),
        ("tru", "invalid literal at byte 0"),
        ("\"a\u{01}b\"", "control character in a string at byte 2"),
        ("\"\\ud83d\"", "lone high surrogate in \\u escape at byte 7"),
        ("\"\\x\"", "invalid escape at byte 2"),
        ("\"abc", "unterminated string at byte 4"),
        (String(repeating: "[", count: 40), "nesting deeper than 32 at byte 32"),
    ]

    @Test(arguments: invalid.indices)
    func rejectsInvalidJSONWithAPosition(_ index: Int) {
        let (text, message) = Self.invalid[index]
        #expect {
            try JSONReader.parse(text)
        } throws: { error in
            (error as? JSONReader.Error)?.description == message
        }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONReader.Error.self) { try JSONReader.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }

    @Test func writerRoundTrips() throws {
        let value: JSONValue = .object([("type", .string("x\"\n\u{01}é")), ("seq", .number(42)), ("t", .number(0.1)),
                                        ("n", .null), ("a", .array([.bool(true), .number(-3.25e-7)]))])
        let text = JSONWriter.serialize(value)
        #expect(text == "{\"type\":\"x\\\"\\n\\u0001é\",\"seq\":42,\"t\":0.1,\"n\":null,\"a\":[true,-3.25e-07]}")
        #expect(try JSONReader.parse(text) == value)
    }

    /// Random bytes and mutations of valid lines: the reader returns or throws, never crashes.
    @Test func neverCrashesOnGarbage() {
        var state: UInt64 = 0x1234_5678
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            return z ^ (z >> 31)
        }
        let seeds = Array("{\"op\":\"subscribe\",\"id\":[1,\"\\u00e9\",{\"a\":null}]}".utf8)
        let alphabet = Array("{}[]\",:\\0123456789.eE+-tfnu \u{01}".utf8)
        var parsed = 0
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(next() % 40)).map { _ in UInt8(truncatingIfNeeded: next()) }
            } else {
                bytes = seeds
                for _ in 0..<Int(next() % 4 + 1) {
                    let i = Int(next() % UInt64(bytes.count))
                    bytes[i] = alphabet[Int(next() % UInt64(alphabet.count))]
                }
            }
            if (try? JSONReader.parse(bytes)) != nil { parsed += 1 }
        }
        #expect(parsed > 0)
    }
}
