import AmbientSensorCore
import OrientationCore
import OrientationProtocol
import Testing

/// Subscription topics and the light, proximity and compass messages (docs/PROTOCOL.md).
@Suite struct TopicTests {
    static let requests: [(String, ClientRequest)] = [
        ("{\"op\":\"subscribe\",\"topics\":[\"light\",\"proximity\"]}", ClientRequest(.subscribe, topics: [.light, .proximity])),
        ("{\"op\":\"subscribe\",\"topics\":[\"compass\",\"orientation\",\"compass\"]}", ClientRequest(.subscribe, topics: [.compass, .orientation])),
        // Topics mean something for subscribe only; elsewhere they are ignored like any member.
        ("{\"op\":\"get\",\"topics\":[\"light\"]}", ClientRequest(.get)),
    ]

    @Test(arguments: requests.indices)
    func parsesTopics(_ index: Int) throws {
        let (line, expected) = Self.requests[index]
        #expect(try ClientRequest.parse(Array(line.utf8)) == expected)
        #expect(try ClientRequest.parse(Array(expected.line.utf8)) == expected)
    }

    static let bad: [(String, String)] = [
        ("{\"op\":\"subscribe\",\"topics\":[]}", "\"topics\" must be a non-empty array of topic names (orientation, light, proximity, compass, posture)"),
        ("{\"op\":\"subscribe\",\"topics\":\"light\"}", "\"topics\" must be a non-empty array of topic names (orientation, light, proximity, compass, posture)"),
        ("{\"op\":\"subscribe\",\"topics\":[\"heat\"]}", "unknown topic \"heat\"; known topics: orientation, light, proximity, compass, posture"),
        ("{\"op\":\"subscribe\",\"topics\":[1]}", "unknown topic a number; known topics: orientation, light, proximity, compass, posture"),
    ]

    @Test(arguments: bad.indices)
    func refusesBadTopics(_ index: Int) {
        let (line, message) = Self.bad[index]
        #expect(throws: ProtocolError(.invalidRequest, message)) { try ClientRequest.parse(Array(line.utf8)) }
    }

    static let messages: [(ServerMessage, String)] = [
        (.reading(AuxiliarySensorState(kind: .light, present: true, reading: .light(level: 312.5, unit: .lux))),
         "{\"type\":\"light\",\"present\":true,\"level\":312.5,\"unit\":\"lux\"}"),
        (.reading(AuxiliarySensorState(kind: .light, present: true, reading: .light(level: 40, unit: .vendor))),
         "{\"type\":\"light\",\"present\":true,\"level\":40,\"unit\":\"vendor\"}"),
        (.reading(AuxiliarySensorState(kind: .light)), "{\"type\":\"light\",\"present\":false,\"level\":null,\"unit\":null}"),
        (.reading(AuxiliarySensorState(kind: .proximity, present: true, reading: .proximity(near: true))),
         "{\"type\":\"proximity\",\"present\":true,\"near\":true}"),
        (.reading(AuxiliarySensorState(kind: .proximity, present: true)), "{\"type\":\"proximity\",\"present\":true,\"near\":null}"),
        (.reading(AuxiliarySensorState(kind: .compass, present: true, reading: .compass(heading: 271.5))),
         "{\"type\":\"compass\",\"present\":true,\"heading\":271.5}"),
    ]

    @Test(arguments: messages.indices)
    func readingMessagesRoundTrip(_ index: Int) throws {
        let (message, line) = Self.messages[index]
        #expect(message.line == line)
        #expect(try ServerMessage.parse(Array(line.utf8)) == message)
    }

    @Test func stateRepliesCarryTheSensorsAndHelloTheTopics() throws {
        let sensors = [AuxiliarySensorState(kind: .light, present: true, reading: .light(level: 3, unit: .lux)),
                       AuxiliarySensorState(kind: .proximity), AuxiliarySensorState(kind: .compass)]
        let reply = ServerMessage.state(state: OrientationState(), age: nil, sensorActive: false, subscribers: 0, sensors: sensors, id: nil)
        #expect(reply.line.contains("\"light\":{\"present\":true,\"level\":3,\"unit\":\"lux\"},\"proximity\":{\"present\":false,\"near\":null}"))
        #expect(try ServerMessage.parse(Array(reply.line.utf8)) == reply)
        let hello = ServerMessage.hello(protocol: 1, server: "orientationd", state: OrientationState())
        #expect(hello.line.hasSuffix("\"topics\":[\"orientation\",\"light\",\"proximity\",\"compass\",\"posture\"]}"))
    }
}
