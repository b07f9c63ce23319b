import NIOCore
import NIOEmbedded
import OrientationCore
import OrientationProtocol
@testable import OrientationServer
import PostureCore
import Testing

/// The `posture` topic (issue 30, docs/PROTOCOL.md): offered in `hello`, claimed by its first
/// subscriber and released by its last, its current state sent right after `subscribed`, its
/// changes to its subscribers only, and the state in `get`.
@Suite struct PostureTopicTests {
    static func lines(_ channel: EmbeddedChannel) throws -> [String] {
        var lines: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { lines += String(buffer: buffer).split(separator: "\n").map(String.init) }
        return lines
    }

    @Test func subscribingToPostureClaimsItAndSendsTheStateAtOnce() throws {
        let claims = TopicSubscriptionTests.Claims()
        let (channel, hub) = try TopicSubscriptionTests.connection(claims)
        defer { _ = try? channel.finish() }
        channel.pipeline.fireChannelRead(ByteBuffer(string: "{\"op\":\"subscribe\",\"topics\":[\"orientation\",\"light\"]}\n"))
        let hello = try #require(try Self.lines(channel).first)
        #expect(hello.contains("\"topics\":[\"orientation\",\"light\",\"proximity\",\"compass\",\"posture\"]"), "\(hello)")
        #expect(claims.all == ["orientation true", "light true"])

        channel.pipeline.fireChannelRead(ByteBuffer(string: "{\"op\":\"subscribe\",\"topics\":[\"posture\"],\"id\":7}\n"))
        let reply = try Self.lines(channel)
        #expect(reply.count == 2, "\(reply)")
        #expect(reply.first?.contains("\"type\":\"subscribed\"") == true && reply.first?.contains("\"id\":7") == true)
        #expect(try ServerMessage.parse(Array(reply[1].utf8)) == .posture(PostureState()))
        #expect(claims.all == ["orientation true", "light true", "orientation false", "light false", "posture true"])

        // A change reaches the subscriber; an unchanged state sends nothing.
        let laptop = PostureState(present: true, posture: .laptop, hingeAngle: 112, hold: nil)
        hub.publish(posture: laptop)
        hub.publish(posture: laptop)
        #expect(try Self.lines(channel) == [ServerMessage.posture(laptop).line])

        channel.pipeline.fireChannelRead(ByteBuffer(string: "{\"op\":\"get\",\"id\":8}\n"))
        let state = try ServerMessage.parse(Array(try #require(try Self.lines(channel).first).utf8))
        guard case .state(_, _, _, _, _, let posture, let id) = state else {
            Issue.record("expected a state reply, got \(state)")
            return
        }
        #expect(posture == laptop && id == .number(8))

        channel.pipeline.fireChannelRead(ByteBuffer(string: "{\"op\":\"unsubscribe\"}\n"))
        _ = try Self.lines(channel)
        #expect(claims.all.last == "posture false")
    }
}
