import NIOCore
import NIOEmbedded
import OrientationProtocol
import Testing

/// The `posture` topic is defined on the wire but not served yet (issue 30, docs/PROTOCOL.md):
/// the server's `hello` does not offer it, and subscribing to it is refused without changing
/// what the connection had.
@Suite struct PostureTopicRefusalTests {
    @Test func subscribingToPostureIsRefusedAndChangesNothing() throws {
        let claims = TopicSubscriptionTests.Claims()
        let (channel, _) = try TopicSubscriptionTests.connection(claims)
        defer { _ = try? channel.finish() }
        channel.pipeline.fireChannelRead(ByteBuffer(string: "{\"op\":\"subscribe\",\"topics\":[\"orientation\",\"light\"]}\n"))
        var lines: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { lines += String(buffer: buffer).split(separator: "\n").map(String.init) }
        let hello = try #require(lines.first)
        #expect(hello.contains("\"topics\":[\"orientation\",\"light\",\"proximity\",\"compass\"]"), "\(hello)")
        #expect(claims.all == ["orientation true", "light true"])

        channel.pipeline.fireChannelRead(ByteBuffer(string: "{\"op\":\"subscribe\",\"topics\":[\"posture\"],\"id\":7}\n"))
        lines = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { lines += String(buffer: buffer).split(separator: "\n").map(String.init) }
        #expect(lines.count == 1)
        let reply = try ServerMessage.parse(Array(try #require(lines.first).utf8))
        guard case .error(let error, let id) = reply else {
            Issue.record("expected an error, got \(reply)")
            return
        }
        #expect(error.code == .invalidRequest)
        #expect(error.message.hasPrefix("topic \"posture\" is not served by this server"))
        #expect(id == .number(7))
        #expect(claims.all == ["orientation true", "light true"], "a refused subscribe changes nothing")
    }
}
