import OrientationCore
import OrientationProtocol
import Testing

@Suite struct MessageTests {
    static let requests: [(String, ClientRequest)] = [
        ("{\"op\":\"subscribe\"}", ClientRequest(.subscribe)),
        ("{\"op\":\"get\",\"id\":7}", ClientRequest(.get, id: .number(7))),
        ("{\"id\":\"a\",\"op\":\"ping\",\"future\":{\"x\":1}}", ClientRequest(.ping, id: .string("a"))),
        ("{\"op\":\"lock\"}", ClientRequest(.lock)),
    ]

    @Test(arguments: requests.indices)
    func parsesRequests(_ index: Int) throws {
        let (line, expected) = Self.requests[index]
        #expect(try ClientRequest.parse(Array(line.utf8)) == expected)
        #expect(try ClientRequest.parse(Array(expected.line.utf8)) == expected)
    }

    static let badRequests: [(String, ProtocolError.Code, String)] = [
        ("hello", .invalidJSON, "not valid JSON: unexpected character at byte 0"),
        ("[1]", .invalidRequest, "a request must be a JSON object such as {\"op\":\"subscribe\"}, not an array"),
        ("{}", .invalidRequest, "a request needs an \"op\" member"),
        ("{\"op\":3}", .invalidRequest, "\"op\" must be a string, not a number"),
        ("{\"op\":\"fly\"}", .unknownOp, "unknown op \"fly\"; known ops: subscribe, unsubscribe, get, ping, lock, unlock"),
        ("{\"op\":\"get\",\"id\":{}}", .invalidRequest, "\"id\" must be a string, number, boolean or null"),
    ]

    @Test(arguments: badRequests.indices)
    func rejectsBadRequests(_ index: Int) {
        let (line, code, message) = Self.badRequests[index]
        #expect {
            try ClientRequest.parse(Array(line.utf8))
        } throws: { error in
            (error as? ProtocolError) == ProtocolError(code, message)
        }
    }

    @Test func recoversTheIdOfAMalformedRequest() {
        #expect(ClientRequest.id(ofMalformed: Array("{\"op\":\"fly\",\"id\":5}".utf8)) == .number(5))
        #expect(ClientRequest.id(ofMalformed: Array("garbage".utf8)) == nil)
    }

    static let state = OrientationState(orientation: .landscapeLeft, previous: .portrait, time: 12.5, seq: 3, locked: true)

    static let messages: [(ServerMessage, String)] = [
        (.hello(protocol: 1, server: "orientationd 0.1.0", state: state),
         "{\"type\":\"hello\",\"protocol\":1,\"server\":\"orientationd 0.1.0\",\"orientation\":\"landscape-left\",\"previous\":\"portrait\",\"time\":12.5,\"seq\":3,\"locked\":true,\"topics\":[\"orientation\",\"light\",\"proximity\",\"compass\",\"posture\"]}"),
        (.orientation(state: state),
         "{\"type\":\"orientation\",\"orientation\":\"landscape-left\",\"previous\":\"portrait\",\"time\":12.5,\"seq\":3,\"locked\":true}"),
        (.subscribed(state: OrientationState(), id: .string("s")),
         "{\"type\":\"subscribed\",\"orientation\":\"unknown\",\"previous\":\"unknown\",\"time\":null,\"seq\":0,\"locked\":false,\"id\":\"s\"}"),
        (.state(state: state, age: 1.25, sensorActive: false, subscribers: 0, id: nil),
         "{\"type\":\"state\",\"orientation\":\"landscape-left\",\"previous\":\"portrait\",\"time\":12.5,\"seq\":3,\"locked\":true,\"age\":1.25,\"sensor-active\":false,\"subscribers\":0}"),
        (.error(ProtocolError(.unknownOp, "nope"), id: .number(1)), "{\"type\":\"error\",\"code\":\"unknown-op\",\"message\":\"nope\",\"id\":1}"),
        (.pong(id: nil), "{\"type\":\"pong\"}"),
        (.unsubscribed(id: nil), "{\"type\":\"unsubscribed\"}"),
        (.lock(state: state, id: nil), "{\"type\":\"lock\",\"orientation\":\"landscape-left\",\"previous\":\"portrait\",\"time\":12.5,\"seq\":3,\"locked\":true}"),
        (.goodbye(reason: "shutting down"), "{\"type\":\"goodbye\",\"reason\":\"shutting down\"}"),
    ]

    @Test(arguments: messages.indices)
    func serverMessagesHaveAStableWireFormAndRoundTrip(_ index: Int) throws {
        let (message, line) = Self.messages[index]
        #expect(message.line == line)
        #expect(try ServerMessage.parse(Array(line.utf8)) == message)
    }

    @Test func unknownServerMessageTypesAreTolerated() throws {
        #expect(try ServerMessage.parse(Array("{\"type\":\"calibration\",\"x\":1}".utf8)) == .unknown(type: "calibration"))
        #expect(throws: ProtocolError.self) { try ServerMessage.parse(Array("{\"x\":1}".utf8)) }
    }
}

/// Issue 9: numbers that a `Double` would change are kept as written; numbers a hostile server
/// sends out of range are errors, never traps.
@Suite struct ExactNumberTests {
    @Test(arguments: ["9007199254740993", "-9007199254740993", "123456789012345678901234567890", "1.50", "1e2", "0.10", "-0"])
    func aNumberADoubleWouldChangeIsWrittenBackAsReceived(_ text: String) throws {
        let value = try JSONReader.parse(Array("{\"id\":\(text)}".utf8))
        #expect(JSONWriter.serialize(value) == "{\"id\":\(text)}")
        #expect(value["id"]?.numberValue == Double(text))
    }

    @Test(arguments: ["42", "0.1", "-3.25e-07", "1e+300"])
    func aNumberThatSurvivesADoubleStaysAPlainNumber(_ text: String) throws {
        let value = try JSONReader.parse(Array(text.utf8))
        #expect(value == .number(Double(text)!))
    }

    @Test func numbersCompareByValueWhicheverCaseHoldsThem() {
        #expect(JSONValue.exactNumber("1.50") == .number(1.5))
        #expect(Set([JSONValue.exactNumber("1e2"), .number(100)]).count == 1)
    }

    @Test(arguments: [
        "{\"type\":\"hello\",\"protocol\":1e300,\"orientation\":\"unknown\",\"previous\":\"unknown\",\"seq\":0}",
        "{\"type\":\"orientation\",\"orientation\":\"portrait\",\"previous\":\"unknown\",\"seq\":1e300}",
        "{\"type\":\"orientation\",\"orientation\":\"portrait\",\"previous\":\"unknown\",\"seq\":-1}",
        "{\"type\":\"state\",\"orientation\":\"portrait\",\"previous\":\"unknown\",\"seq\":1,\"subscribers\":1e300}",
    ])
    func outOfRangeNumbersFromAServerAreErrorsNotTraps(_ line: String) {
        #expect(throws: ProtocolError.self) { try ServerMessage.parse(Array(line.utf8)) }
    }
}
