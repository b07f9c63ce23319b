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
         "{\"type\":\"hello\",\"protocol\":1,\"server\":\"orientationd 0.1.0\",\"orientation\":\"landscape-left\",\"previous\":\"portrait\",\"time\":12.5,\"seq\":3,\"locked\":true}"),
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
