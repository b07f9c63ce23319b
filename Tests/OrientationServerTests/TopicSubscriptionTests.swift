import AmbientSensorCore
import LineFraming
import Logging
import NIOCore
import NIOEmbedded
import OrientationCore
import OrientationProtocol
@testable import OrientationServer
import Synchronization
import Testing

/// Topics on one connection, in the loop's own time (an `EmbeddedChannel`): what each topic
/// claims, and coalescing per topic for a slow client (issue 17).
@Suite struct TopicSubscriptionTests {
    final class Claims: Sendable {
        let log = Mutex<[String]>([])
        func add(_ entry: String) { log.withLock { $0.append(entry) } }
        var all: [String] { log.withLock { $0 } }
    }

    static func connection(_ claims: Claims) throws -> (EmbeddedChannel, SubscriptionHub) {
        let channel = EmbeddedChannel()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let hub = SubscriptionHub(eventLoop: channel.embeddedEventLoop, configuration: ServerConfiguration(socketPath: "/unused"),
                                  privileges: try PrivilegePolicy(uids: [], group: nil), logger: logger,
                                  onClaimChange: { claims.add("orientation \($0)") },
                                  onTopicClaimChange: { claims.add("\($0) \($1)") })
        try channel.pipeline.syncOperations.addHandlers(
            ByteToMessageHandler(LineFrameDecoder { hub.configuration.maximumLineLength }), ClientConnectionHandler(hub: hub))
        try channel.connect(to: SocketAddress(unixDomainSocketPath: "/unused")).wait()
        return (channel, hub)
    }

    static func types(_ channel: EmbeddedChannel) throws -> [String] {
        var types: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            for line in String(buffer: buffer).split(separator: "\n") {
                types.append(try JSONReader.parse(Array(line.utf8))["type"]?.stringValue ?? "?")
            }
        }
        return types
    }

    @Test func eachTopicClaimsItsOwnSensor() throws {
        let claims = Claims()
        let (channel, _) = try Self.connection(claims)
        defer { _ = try? channel.finish() }
        channel.pipeline.fireChannelRead(ByteBuffer(string: "{\"op\":\"subscribe\",\"topics\":[\"light\",\"compass\"]}\n"))
        #expect(try Self.types(channel) == ["hello", "subscribed", "light", "compass"])
        #expect(claims.all == ["light true", "compass true"], "the accelerometer is not claimed")
        channel.pipeline.fireChannelRead(ByteBuffer(string: "{\"op\":\"subscribe\",\"topics\":[\"orientation\",\"light\"]}\n"))
        #expect(claims.all == ["light true", "compass true", "orientation true", "compass false"])
        channel.pipeline.fireChannelRead(ByteBuffer(string: "{\"op\":\"subscribe\"}\n"))
        #expect(claims.all.suffix(1) == ["light false"], "a subscribe without topics is the orientation alone")
        channel.pipeline.fireChannelRead(ByteBuffer(string: "{\"op\":\"subscribe\",\"topics\":[\"heat\"]}\n"))
        #expect(try Self.types(channel).suffix(1) == ["error"])
        #expect(claims.all.count == 5, "a refused subscribe changes nothing")
        _ = try channel.finish()
        #expect(claims.all.suffix(1) == ["orientation false"], "a disconnect releases what it claimed")
    }

    @Test func aSlowClientKeepsTheNewestOfEachTopic() throws {
        let (channel, hub) = try Self.connection(Claims())
        defer { _ = try? channel.finish() }
        channel.pipeline.fireChannelRead(ByteBuffer(string: "{\"op\":\"subscribe\",\"topics\":[\"orientation\",\"light\"]}\n"))
        _ = try Self.types(channel)
        channel.isWritable = false
        hub.publish(orientation: .portrait, time: 1)
        hub.publish(sensor: AuxiliarySensorState(kind: .light, present: true, reading: .light(level: 10, unit: .lux)))
        hub.publish(orientation: .landscapeLeft, time: 2)
        hub.publish(sensor: AuxiliarySensorState(kind: .light, present: true, reading: .light(level: 500, unit: .lux)))
        #expect(try Self.types(channel) == [])
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        var lines: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { lines += String(buffer: buffer).split(separator: "\n").map(String.init) }
        #expect(lines.count == 2 && lines[0].contains("\"orientation\":\"landscape-left\"") && lines[1].contains("\"level\":500"), "\(lines)")
    }
}
