import Logging
import OrientationCore
import SensorLifecycle
import SensorPipeline
import Synchronization
import Testing

/// Issue 40: with no sensor, every client connection made the daemon log "sensor failure;
/// retrying" five times in ten seconds (each new claim started the back-off afresh), then every
/// 30 s. An outage is said twice: once when the sensor goes missing, once when it works again.
/// Counted over a minute of back-off on a stepped clock (no wall time, no sleep): the pipeline's
/// every wait is a step the test lets pass or cancels.
@Suite struct SensorOutageLogTests {
    @Test func aMinuteWithoutASensorAndFiveClientsLogsOneWarningAndTheReturnOneNotice() async throws {
        let log = CapturedLog()
        var logger = Logger(label: "test") { _ in CapturedLog.Handler(log: log) }
        logger.logLevel = .debug
        let source = AbsentSource()
        let clock = SteppedClock()
        let opened = AsyncStream.makeStream(of: Void.self)
        let pipeline = try SensorPipeline(source: source, configuration: .init(), logger: logger, sleeper: clock.sleeper,
                                          releaseDelay: 0) { event in
            if event == .sensorActive(true) { opened.continuation.yield() }
        }
        let running = Task { await pipeline.run() }
        pipeline.setClaimed(true)

        // A minute of back-off; in its first seconds five clients come and go (each leaves during
        // a wait, and the next one's claim opens the sensor anew).
        var now = 0.0
        var clients = 1
        var pending: SteppedClock.Step? = nil
        for await step in clock.steps {
            guard now + step.seconds <= 60 else {
                pending = step
                break
            }
            now += step.seconds
            if clients < 6 {
                clients += 1
                pipeline.setClaimed(false)
                await step.cancellation()
                pipeline.setClaimed(true)
            } else {
                step.resume()
            }
        }
        let failures = log.lines.filter { $0.message == "sensor failure; retrying" }
        #expect(failures.filter { $0.level == .warning }.count == 1, "\(failures.map { "\($0.level)" })")
        #expect(failures.count >= 10, "the retries went on (at debug): \(failures.count) in \(now) s")
        #expect(source.opens.load(ordering: .relaxed) >= 10)
        #expect(!log.lines.contains { $0.message == "sensor works again" })

        // The sensor appears: the next retry opens it, and that is said once.
        source.present.store(true, ordering: .relaxed)
        pending?.resume()
        var iterator = opened.stream.makeAsyncIterator()
        await iterator.next()
        pipeline.finish()
        await running.value
        #expect(log.lines.filter { $0.message == "sensor works again" && $0.level == .notice }.count == 1, "\(log.lines)")
        #expect(log.lines.filter { $0.message == "sensor failure; retrying" && $0.level == .warning }.count == 1)
    }
}

/// Every line logged, with its level.
final class CapturedLog: Sendable {
    struct Line: Sendable, CustomStringConvertible {
        let level: Logger.Level
        let message: String
        var description: String { "\(level) \(message)" }
    }

    private let stored = Mutex<[Line]>([])
    var lines: [Line] { stored.withLock { $0 } }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
                 function: String, line: UInt) {
            self.log.stored.withLock { $0.append(Line(level: level, message: "\(message)")) }
        }
    }
}

/// A sensor that is not there until `present` is set; then its stream ends at once (a source
/// with nothing to say, enough to show that the open worked).
final class AbsentSource: SensorSource {
    let name = "absent"
    let present = Atomic<Bool>(false)
    let opens = Atomic<Int>(0)
    var progressLimit: Double? { nil }

    struct NoSensor: Error, CustomStringConvertible {
        var description: String { "no display accelerometer found" }
    }

    final class EmptyStream: SampleStream {
        func next() async throws -> Sample? { nil }
        func close() async {}
    }

    func open() async throws -> any SampleStream {
        opens.add(1, ordering: .relaxed)
        guard present.load(ordering: .relaxed) else { throw NoSensor() }
        return EmptyStream()
    }
}

/// A ``Sleeper`` whose every wait is a ``Step`` handed to the test, which lets it pass
/// (``Step/resume()``) or waits for the pipeline to cancel it (``Step/cancellation()``).
final class SteppedClock: Sendable {
    final class Step: Sendable {
        let seconds: Double
        private struct State {
            var continuation: CheckedContinuation<Void, Never>? = nil
            var finished = false
            var cancelled = false
            var cancellationWaiters: [CheckedContinuation<Void, Never>] = []
        }
        private let state = Mutex(State())

        init(seconds: Double) { self.seconds = seconds }

        /// The sleeper's side: returns once the step is resumed or cancelled.
        func wait(_ continuation: CheckedContinuation<Void, Never>) {
            let now = state.withLock { state -> Bool in
                if state.finished { return true }
                state.continuation = continuation
                return false
            }
            if now { continuation.resume() }
        }

        /// Lets the wait end.
        func resume() { finish(cancelled: false) }

        /// The task that waits was cancelled.
        func cancel() { finish(cancelled: true) }

        private func finish(cancelled: Bool) {
            let (continuation, waiters) = state.withLock { state -> (CheckedContinuation<Void, Never>?, [CheckedContinuation<Void, Never>]) in
                guard !state.finished else { return (nil, []) }
                state.finished = true
                state.cancelled = cancelled
                defer { state.continuation = nil; state.cancellationWaiters = [] }
                return (state.continuation, cancelled ? state.cancellationWaiters : [])
            }
            continuation?.resume()
            for waiter in waiters { waiter.resume() }
        }

        /// Returns once the waiting task has been cancelled.
        func cancellation() async {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.cancelled { return true }
                    state.cancellationWaiters.append(waiter)
                    return false
                }
                if now { waiter.resume() }
            }
        }
    }

    let steps: AsyncStream<Step>
    private let continuation: AsyncStream<Step>.Continuation

    init() {
        (steps, continuation) = AsyncStream.makeStream(of: Step.self)
    }

    var sleeper: Sleeper {
        Sleeper { [continuation] seconds in
            let step = Step(seconds: seconds)
            await withTaskCancellationHandler {
                await withCheckedContinuation { (waiting: CheckedContinuation<Void, Never>) in
                    step.wait(waiting)
                    continuation.yield(step)
                }
            } onCancel: {
                step.cancel()
            }
            try Task.checkCancellation()
        }
    }
}
