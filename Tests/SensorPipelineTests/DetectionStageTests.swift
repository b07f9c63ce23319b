import Glibc
import Logging
import OrientationCore
import SensorPipeline
import Synchronization
import Testing

/// Issue 28: the pipeline's detection runs on the reader's thread (a ``SampleConsumer``), its
/// events still reach the publisher in order and after the sensor is said to be open, and the
/// rate governor's pace goes back to the reader.
@Suite struct DetectionStageTests {
    /// A source whose "reader" hands every sample to the consumer before `open(consumer:)` has
    /// returned (a real reader's thread may start delivering that early: the worst case for
    /// order), and keeps the paces the consumer asked for.
    final class ThreadedSource: SensorSource {
        let name = "threaded"
        let samples: [Sample]
        let governor: SampleRateGovernor.Configuration
        let paces = Mutex<[Double?]>([])

        init(samples: [Sample], governor: SampleRateGovernor.Configuration = .init()) {
            self.samples = samples
            self.governor = governor
        }

        var rateGovernor: SampleRateGovernor.Configuration { governor }

        func open() async throws -> any SampleStream { try await open(consumer: nil) }

        func open(consumer: (any SampleConsumer)?) async throws -> any SampleStream {
            let (stream, continuation) = AsyncThrowingStream.makeStream(of: Sample.self)
            let delivery = SampleDelivery(continuation: continuation, consumer: consumer)
            for sample in samples {
                let pace = delivery.deliver(sample)
                paces.withLock { $0.append(pace) }
            }
            delivery.finish()
            return Stream(iterator: stream.makeAsyncIterator())
        }

        final class Stream: SampleStream {
            var iterator: AsyncThrowingStream<Sample, Error>.AsyncIterator
            init(iterator: AsyncThrowingStream<Sample, Error>.AsyncIterator) { self.iterator = iterator }
            func next() async throws -> Sample? { try await iterator.next() }
            func close() async {}
        }
    }

    static func still(angle: Double, seconds: Double, from start: Double = 0, rate: Double = 20) -> [Sample] {
        let a = angle * Double.pi / 180
        let g = Vector3(-sin(a), -cos(a), -0.35) * 9.2
        return (0..<Int(seconds * rate)).map { Sample(time: start + Double($0) / rate, acceleration: g) }
    }

    /// Claims `source` through a pipeline until it has finished; returns every event.
    static func runToTheEnd(_ source: ThreadedSource) async throws -> [SensorPipeline.Event] {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let events = Mutex<[SensorPipeline.Event]>([])
        let finished = AsyncStream.makeStream(of: Void.self)
        let pipeline = try SensorPipeline(source: source, configuration: .init(), logger: logger) { event in
            events.withLock { $0.append(event) }
            if event == .sourceFinished { finished.continuation.yield() }
        }
        let running = Task { await pipeline.run() }
        pipeline.setClaimed(true)
        for await _ in finished.stream { break }
        pipeline.finish()
        await running.value
        return events.withLock { $0 }
    }

    @Test func eventsComeAfterTheSensorIsOpenInOrderAndThePaceReachesTheReader() async throws {
        // Portrait for 3 s, then landscape-left for 3 s (a turn between two samples).
        let source = ThreadedSource(samples: Self.still(angle: 0, seconds: 3) + Self.still(angle: 90, seconds: 3, from: 3))
        let all = try await Self.runToTheEnd(source)
        #expect(all.first == .sensorActive(true), "\(all)")
        let orientations = all.compactMap { if case .orientation(let e) = $0 { e.orientation } else { nil } }
        #expect(orientations == [.portrait, .landscapeLeft], "\(all)")
        let firstTilt = all.firstIndex { if case .tilt = $0 { true } else { false } }
        let firstOrientation = all.firstIndex { if case .orientation = $0 { true } else { false } }
        #expect(firstTilt != nil && firstOrientation != nil && firstTilt! < firstOrientation!, "\(all)")
        #expect(Array(all.suffix(2)) == [.sensorActive(false), .sourceFinished], "\(all)")
        // The reader heard "0.5 s" once the device had been still and settled for a second, and
        // "full rate" again from the first sample after the turn.
        let paces = source.paces.withLock { $0 }
        let slowFrom = try #require(paces.firstIndex { $0 == 0.5 })
        #expect(slowFrom >= 20 && slowFrom < 40, "slowed after \(slowFrom) samples")
        #expect(paces[60] == nil, "the turn's first sample wakes the reader: \(paces[55...65])")
        #expect(paces.last == 0.5, "settled again in landscape")
    }

    @Test func aSourceWithoutAGovernorIsNeverSlowed() async throws {
        let source = ThreadedSource(samples: Self.still(angle: 0, seconds: 3), governor: .off)
        #expect(try await Self.runToTheEnd(source).last == .sourceFinished)
        #expect(source.paces.withLock { $0 }.allSatisfy { $0 == nil })
    }
}
