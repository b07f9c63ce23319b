import OrientationCore
import OrientationProtocol
import PostureCore
import Testing

/// The `posture` message and topic (docs/PROTOCOL.md): served since issue 30, and
/// invisible to existing clients.
@Suite struct PostureMessageTests {
    static let messages: [(PostureState, String)] = [
        (PostureState(present: true, posture: .laptop, hingeAngle: 112, hold: nil),
         "{\"type\":\"posture\",\"present\":true,\"posture\":\"laptop\",\"hinge\":112,\"hold\":null,\"held_for\":null}"),
        (PostureState(present: true, posture: .tablet, hingeAngle: 360, hold: .hingeVertical),
         "{\"type\":\"posture\",\"present\":true,\"posture\":\"tablet\",\"hinge\":360,\"hold\":\"hinge-vertical\",\"held_for\":null}"),
        (PostureState(present: true, posture: .unknown, hingeAngle: nil, hold: .closedOrFoldedBack),
         "{\"type\":\"posture\",\"present\":true,\"posture\":\"unknown\",\"hinge\":null,\"hold\":\"closed-or-folded-back\",\"held_for\":null}"),
        // Issue 38: held on its side for 12.5 s.
        (PostureState(present: true, posture: .laptop, hingeAngle: 95, hold: .hingeVertical, heldFor: 12.5),
         "{\"type\":\"posture\",\"present\":true,\"posture\":\"laptop\",\"hinge\":95,\"hold\":\"hinge-vertical\",\"held_for\":12.5}"),
        (PostureState(), "{\"type\":\"posture\",\"present\":false,\"posture\":\"unknown\",\"hinge\":null,\"hold\":null,\"held_for\":null}"),
    ]

    @Test(arguments: messages.indices)
    func roundTrips(_ index: Int) throws {
        let (state, line) = Self.messages[index]
        #expect(ServerMessage.posture(state).line == line)
        #expect(try ServerMessage.parse(Array(line.utf8)) == .posture(state))
    }

    @Test func everyPostureAndHoldHasAWireName() throws {
        for posture in Posture.allCases {
            for hold in [nil] + PostureHold.allCases.map(Optional.some) {
                let state = PostureState(present: true, posture: posture, hingeAngle: 200.5, hold: hold)
                #expect(try ServerMessage.parse(Array(ServerMessage.posture(state).line.utf8)) == .posture(state))
            }
        }
    }

    static let tolerant: [(String, PostureState)] = [
        // A newer server's posture or hold name: unknown, no hold, nothing thrown.
        ("{\"type\":\"posture\",\"present\":true,\"posture\":\"book\",\"hinge\":95,\"hold\":\"dozing\"}",
         PostureState(present: true, posture: .unknown, hingeAngle: 95, hold: nil)),
        // A hinge angle outside 0…360, or not a number, is none.
        ("{\"type\":\"posture\",\"present\":true,\"posture\":\"flat\",\"hinge\":720}", PostureState(present: true, posture: .flat)),
        ("{\"type\":\"posture\",\"present\":true,\"posture\":\"flat\",\"hinge\":\"180\"}", PostureState(present: true, posture: .flat)),
        ("{\"type\":\"posture\"}", PostureState()),
        // A held_for that is negative, not finite or not a number is none (an older server sends none).
        ("{\"type\":\"posture\",\"present\":true,\"posture\":\"flat\",\"held_for\":-1}", PostureState(present: true, posture: .flat)),
        ("{\"type\":\"posture\",\"present\":true,\"posture\":\"flat\",\"held_for\":\"3\"}", PostureState(present: true, posture: .flat)),
    ]

    @Test(arguments: tolerant.indices)
    func parsesTolerantly(_ index: Int) throws {
        let (line, state) = Self.tolerant[index]
        #expect(try ServerMessage.parse(Array(line.utf8)) == .posture(state))
    }

    @Test func theTopicIsOffered() throws {
        #expect(SubscriptionTopic(rawValue: "posture") == .posture)
        #expect(SubscriptionTopic.offered.contains(.posture))
        let hello = ServerMessage.hello(protocol: 1, server: "orientationd", state: OrientationState())
        #expect(hello.line.hasSuffix(",\"topics\":[\"orientation\",\"light\",\"proximity\",\"compass\",\"posture\"]}"))
        let line = "{\"op\":\"subscribe\",\"topics\":[\"orientation\",\"posture\"],\"id\":3}"
        #expect(try ClientRequest.parse(Array(line.utf8)) == ClientRequest(.subscribe, id: .number(3), topics: [.orientation, .posture]))
    }

    /// The `get` reply carries the posture as a member object; an older server's has none.
    @Test func theStateReplyCarriesThePosture() throws {
        let posture = PostureState(present: true, posture: .tent, hingeAngle: 290, hold: nil)
        let reply = ServerMessage.state(state: OrientationState(), age: nil, sensorActive: false, subscribers: 0, posture: posture, id: nil)
        #expect(reply.line.hasSuffix(",\"posture\":{\"present\":true,\"posture\":\"tent\",\"hinge\":290,\"hold\":null,\"held_for\":null}}"))
        #expect(try ServerMessage.parse(Array(reply.line.utf8)) == reply)
        let old = ServerMessage.state(state: OrientationState(), age: nil, sensorActive: false, subscribers: 0, id: nil)
        #expect(try ServerMessage.parse(Array(old.line.utf8)) == old)
    }
}
