import Glibc
import OwnerThreads
import Logging
import OrientationCore
import SensorIIO
import SensorLog
import SensorPipeline
import Synchronization
import SensorInput

/// `orientationd --record` on a convertible (issue 30): the base accelerometer (its own reader,
/// through its backend row, its own mount matrix applied) and the lid switch are recorded beside
/// the display's samples, as a v3 log (docs/LOG-FORMAT.md: `base_x,base_y,base_z`, `lid`).
///
/// The readers run on threads of their own and deliver in batches, so rows are written in time
/// order with a lag (``lag``): a row goes out once the display's newest sample is that much newer,
/// and a base reading or lid change within 1 µs of a display sample shares its row. A reading
/// older than what was already written (a reader late by more than the lag) is dropped and counted.
final class ConvertibleRecording: Sendable {
    /// Seconds a row waits for the other readers (a buffered reader's batch is 50 ms at 100 Hz).
    static let lag = 0.25

    private struct Pending {
        var rows: [SensorLogRecord] = []
        var written = -Double.infinity
        var dropped = 0
    }

    private let pending = Mutex(Pending())
    /// Why the base's stream ended before the recording did, if it did.
    private let baseEnd = Mutex<String?>(nil)
    private let closers = Mutex<[@Sendable () async -> Void]>([])
    /// Whether a base accelerometer and a lid switch are recorded (the writer's columns).
    let hasBase: Bool
    let hasLid: Bool

    private init(hasBase: Bool, hasLid: Bool) {
        self.hasBase = hasBase
        self.hasLid = hasLid
    }

    /// Opens the base accelerometer (when discovery's choice has one) and the lid switch (when
    /// there is one), adding their metadata. Without a base, records nothing more.
    static func start(source: DiscoveringAccelerometerSource, choice: SensorChoice, metadata: inout SensorLogMetadata,
                      logger: Logger) async -> ConvertibleRecording {
        guard choice.base != nil else { return ConvertibleRecording(hasBase: false, hasLid: false) }
        let lidNode = await OwnerThread.run(name: "od-udev-scan") { (try? SensorBackends.discover([.switches]))?.lidSwitch?.node } ?? nil
        let recording = ConvertibleRecording(hasBase: true, hasLid: lidNode != nil)
        do {
            guard let (stream, base, matrix) = try await source.openBase(consumer: BaseRows(recording: recording)) else {
                return ConvertibleRecording(hasBase: false, hasLid: false)  // gone since the choice
            }
            metadata.append(key: "base-device", value: "\(base.name) (\(base.id))")
            metadata.append(key: "base-mount-matrix", value: "\(matrix.matrix)")
            // The stream ends only by failing (its samples went to the consumer): awaited until
            // the recording ends, so that a base that fails is said at once and at the end, and
            // the display's recording goes on (issue 36: its columns just went empty).
            let holder = StreamHolder(stream)
            let watcher = Task {
                do {
                    while try await holder.next() != nil {}
                } catch is CancellationError {
                } catch {
                    guard !Task.isCancelled else { return }
                    recording.baseEnd.withLock { $0 = "\(error)" }
                    logger.warning("the base accelerometer stopped; the recording goes on without its columns",
                                   metadata: ["device": "\(base.id)", "reason": "\(error)"])
                }
            }
            recording.closers.withLock {
                $0.append {
                    watcher.cancel()
                    await watcher.value
                    await holder.close()
                }
            }
        } catch {
            logger.warning("cannot record the base accelerometer", metadata: ["reason": "\(error)"])
            return ConvertibleRecording(hasBase: false, hasLid: false)
        }
        if let lidNode {
            let reader = InputSwitchReader.lid(node: lidNode, onChange: { closed, time in
                recording.add(SensorLogRecord(time: time, lidClosed: closed))
            }, onEnd: { _ in })
            do {
                try reader.start()
                recording.closers.withLock { $0.append { await reader.stop() } }
                metadata.append(key: "lid-switch", value: lidNode)
            } catch {
                logger.warning("cannot record the lid switch", metadata: ["reason": "\(error)"])
            }
        }
        return recording
    }

    /// Adds a row (a base reading or a lid change), from its reader's thread.
    func add(_ row: SensorLogRecord) {
        pending.withLock { pending in
            guard row.time > pending.written else {
                pending.dropped += 1
                return
            }
            var index = pending.rows.endIndex
            while index > pending.rows.startIndex, pending.rows[index - 1].time > row.time { index -= 1 }
            pending.rows.insert(row, at: index)
        }
    }

    /// The rows due once the display's sample `sample` is taken: it joins them, and everything
    /// older than it by more than ``lag`` is returned in time order (rows within 1 µs merged).
    /// With `final`, everything.
    func rows(with sample: Sample?, final: Bool = false) -> [SensorLogRecord] {
        if let sample { add(SensorLogRecord(sample)) }
        return pending.withLock { pending in
            let horizon = final ? Double.infinity : (pending.rows.last(where: { $0.acceleration != nil })?.time ?? -.infinity) - Self.lag
            var out: [SensorLogRecord] = []
            while let first = pending.rows.first, first.time <= horizon {
                pending.rows.removeFirst()
                if var last = out.last, first.time - last.time < 1e-6 {
                    last.acceleration = last.acceleration ?? first.acceleration
                    last.angularRate = last.angularRate ?? first.angularRate
                    last.light = last.light ?? first.light
                    last.proximity = last.proximity ?? first.proximity
                    last.base = last.base ?? first.base
                    last.lidClosed = last.lidClosed ?? first.lidClosed
                    out[out.count - 1] = last
                } else {
                    out.append(first)
                }
            }
            if let last = out.last { pending.written = max(pending.written, last.time) }
            return out
        }
    }

    /// Why the base accelerometer stopped before the recording did (`nil`: it did not).
    var baseStopped: String? { baseEnd.withLock { $0 } }

    /// Base readings and lid changes that came too late to be written in order.
    var dropped: Int { pending.withLock { $0.dropped } }

    /// Closes the base reader and the lid switch.
    func stop() async {
        let closers = self.closers.withLock { closers in
            defer { closers = [] }
            return closers
        }
        for close in closers { await close() }
    }

    /// The base's samples as rows, on its reader's thread, at its full rate.
    private struct BaseRows: SampleConsumer {
        let recording: ConvertibleRecording
        func consume(_ sample: Sample) -> Double? {
            recording.add(SensorLogRecord(time: sample.time, base: sample.acceleration))
            return nil
        }
    }

    /// A stream owned by one task at a time: the watcher awaits it, and once the watcher has
    /// ended it is closed, once, after the recording's loop.
    private final class StreamHolder: @unchecked Sendable {
        // unchecked: next() runs only in the watcher task, close() only after it has ended.
        private let stream: any SampleStream
        init(_ stream: any SampleStream) { self.stream = stream }
        func next() async throws -> Sample? { try await stream.next() }
        func close() async { await stream.close() }
    }
}
