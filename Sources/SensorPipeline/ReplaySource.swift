import OrientationCore
import SensorLifecycle
import SensorLog
import Synchronization

/// Replays a recorded log as if it were a live sensor.
///
/// The log is read and validated once, when the source is made (a malformed line is an error
/// then, not halfway through a session). The replay clock runs only while the source is open: a
/// stream paces samples at `speed` × their recorded intervals from where the last stream stopped,
/// so with nobody subscribed the replay pauses. With `loop`, it restarts at the beginning with
/// timestamps that keep increasing.
public final class ReplaySource: SensorSource {
    /// Replay speed: a multiple of real time, or as fast as possible.
    public enum Speed: Sendable, Equatable {
        case multiple(Double)
        case maximum
    }

    public let name: String
    /// A replay may pause for any time (a slow speed, a gap in the log): no watchdog deadline.
    public var progressLimit: Double? { nil }
    public let speed: Speed
    public let loop: Bool
    public let samples: [Sample]
    /// A convertible's log (v3): the rows that carry the base's reading or the lid switch's
    /// state, in file order (a row may carry the display's sample too, which is in ``samples``).
    /// Empty for any other log.
    public let convertibleRows: [SensorLogRecord]
    public let metadata: SensorLogMetadata
    /// How pacing waits between samples.
    let sleeper: Sleeper
    /// Index of the next sample and the offset added to timestamps (grows with each loop).
    private let cursor = Mutex<(index: Int, offset: Double)>((0, 0))

    /// Loads a log. - Throws: `SensorLogError` naming the file and line of a problem.
    public init(path: String, speed: Speed = .multiple(1), loop: Bool = false, sleeper: Sleeper = .task) throws {
        var reader = try SensorLogReader(path: path)
        var samples: [Sample] = []
        var rows: [SensorLogRecord] = []
        while let record = try reader.nextRecord() {
            if let sample = record.sample { samples.append(sample) }
            if record.base != nil || record.lidClosed != nil { rows.append(record) }
        }
        self.metadata = reader.metadata
        self.samples = samples
        self.convertibleRows = rows
        self.speed = speed
        self.loop = loop
        self.sleeper = sleeper
        self.name = "replay:" + (path.split(separator: "/").last.map(String.init) ?? path)
    }

    /// A source over samples already in memory (tests, simulations).
    public init(samples: [Sample], name: String, speed: Speed = .maximum, loop: Bool = false, sleeper: Sleeper = .task) {
        self.samples = samples
        self.convertibleRows = []
        self.metadata = SensorLogMetadata()
        self.name = name
        self.speed = speed
        self.loop = loop
        self.sleeper = sleeper
    }

    /// True once a non-looping replay has delivered its last sample.
    public var isFinished: Bool { !loop && cursor.withLock { $0.index } >= samples.count }

    public func open() async throws -> any SampleStream {
        Stream(source: self)
    }

    /// The duration of one pass through the log, in log seconds: a looping replay's next pass
    /// has its recorded times plus this once more.
    public var period: Double {
        guard let first = samples.first, let last = samples.last else { return 0 }
        let step = samples.count > 1 ? (last.time - first.time) / Double(samples.count - 1) : 0.01
        return last.time - first.time + max(step, 1e-6)
    }

    /// Takes the next sample and advances the cursor.
    fileprivate func take() -> Sample? {
        cursor.withLock { cursor in
            if cursor.index >= samples.count {
                guard loop, !samples.isEmpty else { return nil }
                cursor.index = 0
                cursor.offset += period
            }
            var sample = samples[cursor.index]
            sample.time += cursor.offset
            cursor.index += 1
            return sample
        }
    }

    fileprivate func peekTime() -> Double? {
        cursor.withLock { cursor in
            if cursor.index < samples.count { return samples[cursor.index].time + cursor.offset }
            guard loop, let first = samples.first else { return nil }
            return first.time + cursor.offset + period
        }
    }

    final class Stream: SampleStream {
        let source: ReplaySource
        let clock = ContinuousClock()
        /// Wall-clock instant and log time of the first sample of this stream.
        var anchor: (instant: ContinuousClock.Instant, time: Double)?
        var closed = false
        var sinceYield = 0

        init(source: ReplaySource) { self.source = source }

        func next() async throws -> Sample? {
            guard !closed, !Task.isCancelled else { return nil }
            guard let due = source.peekTime() else { return nil }
            switch source.speed {
            case .maximum:
                sinceYield += 1
                if sinceYield >= 256 {
                    sinceYield = 0
                    await Task.yield()
                }
            case .multiple(let factor):
                if let anchor {
                    let wait = (due - anchor.time) / factor
                    let remaining = clock.now.duration(to: anchor.instant.advanced(by: .clampedSeconds(wait)))
                    if remaining > .zero { try await source.sleeper.sleep(seconds: remaining.seconds) }
                } else {
                    anchor = (clock.now, due)
                }
            }
            return source.take()
        }

        func close() async { closed = true }
    }
}
