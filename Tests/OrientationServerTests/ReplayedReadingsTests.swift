import AmbientSensorCore
import Glibc
import Logging
import OrientationClient
import OrientationCore
import OrientationDaemon
import OrientationProtocol
import SensorLog
import SensorPipeline
import TestSupport
import Testing

/// A replayed v2 log's light and proximity levels reach socket subscribers of those topics, as
/// the live sensors' do (filter, hysteresis with the log's near level).
@Suite struct ReplayedReadingsTests {
    @Test func aReplayPublishesRecordedLightAndProximity() async throws {
        let dir = temporaryDirectory()
        var metadata = SensorLogMetadata()
        metadata.append(key: "light-unit", value: "lux")
        metadata.append(key: "proximity-near-level", value: "1000")
        var writer = try SensorLogWriter(path: dir + "/r.log", metadata: metadata, includesGyroscope: false, includesLight: true,
                                         includesProximity: true)
        let levels: [(Double?, Double?)] = [(300, 10), (nil, nil), (310, nil), (600, 1200), (nil, 1050), (nil, 800)]
        for (k, (light, proximity)) in levels.enumerated() {
            try writer.write(Sample(time: Double(k) * 0.01, acceleration: Vector3(0, -9.81, 0), light: light, proximity: proximity))
        }
        try writer.finish()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let source = try ReplaySource(path: dir + "/r.log", speed: .maximum)
        let service = try await OrientationService.start(source: source, detector: .init(), server: .init(socketPath: dir + "/d.sock"),
                                                         watchHotplug: false, logger: logger)
        let pipeline = Task { await service.pipeline.run() }
        var updates = OrientationClient(socketPath: dir + "/d.sock")
            .updates(reconnect: .never, topics: [.orientation, .light, .proximity]).makeAsyncIterator()
        var readings: [AuxiliaryReading?] = []
        while readings.count < 6, let update = await updates.next() {
            if case .reading(let sensor) = update {
                #expect(sensor.present)
                readings.append(sensor.reading)
            }
        }
        // Present before the replay runs; 310 is within 10 % of 300; 1050 keeps near (above 0.9 ×), 800 is far.
        #expect(readings == [nil, nil, .light(level: 300, unit: .lux), .proximity(near: false), .light(level: 600, unit: .lux),
                             .proximity(near: true)], "\(readings)")
        // 1050 keeps it near: nothing new is sent (unchanged); 800 is far.
        while readings.count < 7, let update = await updates.next() {
            if case .reading(let sensor) = update { readings.append(sensor.reading) }
        }
        #expect(readings.last == .proximity(near: false), "\(readings)")
        // `get` carries the last values of all three, without subscribing.
        let snapshot = try await OrientationClient(socketPath: dir + "/d.sock").get()
        #expect(snapshot.sensors == [AuxiliarySensorState(kind: .light, present: true, reading: .light(level: 600, unit: .lux)),
                                     AuxiliarySensorState(kind: .proximity, present: true, reading: .proximity(near: false)),
                                     AuxiliarySensorState(kind: .compass)], "\(snapshot.sensors)")
        service.pipeline.finish()
        await pipeline.value
        await service.server.shutdown(reason: "test over")
    }
}
