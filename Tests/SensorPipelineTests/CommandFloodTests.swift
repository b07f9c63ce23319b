import Logging
import OrientationCore
import SensorPipeline
import Synchronization
import Testing

/// The pipeline's inbox under a flood (issue 22, item 1): no command may be lost, however many
/// arrive while the pipeline is busy, and a burst costs one reopen, not one per command.
@Suite struct CommandFloodTests {
    /// A reconfiguration followed by a burst of restarts and claim toggles, all sent while the
    /// loop is stuck closing a sensor whose `open()` has not returned: the new configuration
    /// must still be the one the sensor runs with, and the sensor must end up open. (With the
    /// old stream of commands, bounded to the newest 16, the reconfiguration was dropped and the
    /// detector kept a portrait tilt range that an upright device never enters.)
    @Test func aBurstLosesNoCommand() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let source = GatedSource()
        let events = AsyncStream.makeStream(of: SensorPipeline.Event.self)
        var never = OrientationDetector.Configuration()
        never.portraitTilt = TiltRange(60, 70)  // an upright device is never portrait with this one
        let pipeline = try SensorPipeline(source: source, configuration: never, logger: logger) { event in
            events.continuation.yield(event)
        }
        let running = Task { await pipeline.run() }
        pipeline.setClaimed(true)
        await source.waitForOpenCalls(1)  // the reader is stuck in open()
        pipeline.restart()  // the loop now waits for that reader to end
        try pipeline.reconfigure(OrientationDetector.Configuration())
        for _ in 0..<200 { pipeline.restart() }
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<250 { pipeline.setClaimed((index + task) % 2 == 0) }
                }
            }
        }
        pipeline.setClaimed(true)
        source.release()

        // A bound against a hang only: within the whole `make test` run, synchronous tests that
        // wait for child processes hold the 2 threads async tests share for a minute or two, and
        // 20 s ran out on a machine building beside the tests (126 and 160 s seen, issue 40).
        let published = await firstOrientation(in: events.stream, within: 300)
        #expect(published == .portrait, "the reconfiguration was lost (or the claim): nothing published")
        #expect(source.openCalls.load(ordering: .relaxed) <= 4, "a burst should cost a reopen or two, not one per command")
        pipeline.finish()
        await running.value
        #expect(source.openStreams.load(ordering: .relaxed) == 0, "the sensor is closed after finish()")
    }

    /// `finish()` in the middle of a burst ends the loop with the sensor closed.
    @Test func finishDuringABurstClosesTheSensor() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let source = GatedSource()
        source.release()
        let pipeline = try SensorPipeline(source: source, configuration: .init(), logger: logger) { _ in }
        let running = Task { await pipeline.run() }
        for index in 0..<1000 {
            pipeline.setClaimed(index % 2 == 0)
            if index == 500 { pipeline.finish() }
        }
        await running.value
        #expect(source.openStreams.load(ordering: .relaxed) == 0)
    }

    /// The first orientation published, or `nil` if none came within `seconds` (a bound on a
    /// wait for an awaited event, not a sleep).
    private func firstOrientation(in stream: AsyncStream<SensorPipeline.Event>, within seconds: Double) async -> DeviceOrientation? {
        await withTaskGroup(of: DeviceOrientation?.self) { group in
            group.addTask {
                for await event in stream {
                    if case .orientation(let change) = event { return change.orientation }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

/// A source whose `open()` waits (ignoring cancellation, as a slow driver does) until
/// ``release()``; its streams deliver a device held still in portrait for 5 s at 100 Hz.
final class GatedSource: SensorSource {
    let name = "gated"
    /// Streams that never end (a live sensor at 100 Hz) instead of ending after 500 samples.
    let endless: Bool

    init(endless: Bool = false) { self.endless = endless }
    let openCalls = Atomic<Int>(0)
    let openStreams = Atomic<Int>(0)
    private let gate = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    private let calls = Mutex<(count: Int, waiters: [(Int, CheckedContinuation<Void, Never>)])>((0, []))
    var progressLimit: Double? { nil }

    func release() {
        let waiters = gate.withLock { gate in
            gate.open = true
            defer { gate.waiters = [] }
            return gate.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func waitForOpenCalls(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = calls.withLock { calls in
                if calls.count >= count { return true }
                calls.waiters.append((count, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    func open() async throws -> any SampleStream {
        openCalls.add(1, ordering: .relaxed)
        let ready = calls.withLock { calls -> [CheckedContinuation<Void, Never>] in
            calls.count += 1
            let count = calls.count
            let ready = calls.waiters.filter { $0.0 <= count }.map(\.1)
            calls.waiters.removeAll { $0.0 <= count }
            return ready
        }
        for waiter in ready { waiter.resume() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = gate.withLock { gate in
                if !gate.open { gate.waiters.append(continuation) }
                return gate.open
            }
            if open { continuation.resume() }
        }
        openStreams.add(1, ordering: .relaxed)
        return Stream(source: self)
    }

    final class Stream: SampleStream {
        let source: GatedSource
        var index = 0
        var closed = false

        init(source: GatedSource) { self.source = source }

        func next() async throws -> Sample? {
            await Task.yield()
            guard !Task.isCancelled, index < 500 || source.endless else { return nil }
            if source.endless { try await Task.sleep(for: .milliseconds(10)) }  // a 100 Hz sensor
            defer { index += 1 }
            return Sample(time: Double(index) * 0.01, acceleration: Vector3(0, -9.81, 0))
        }

        func close() async {
            guard !closed else { return }
            closed = true
            source.openStreams.subtract(1, ordering: .relaxed)
        }
    }
}

/// Issue 18, items 1 and 3: the last release is debounced, so claims toggled faster than the
/// release delay keep the sensor open instead of reopening it each time.
@Suite struct ReleaseDelayTests {
    @Test func togglingClaimsReopensNothingAndTheSensorClosesAfterTheDelay() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let source = GatedSource(endless: true)
        source.release()
        let events = AsyncStream.makeStream(of: SensorPipeline.Event.self)
        let pipeline = try SensorPipeline(source: source, configuration: .init(), logger: logger, releaseDelay: 0.3) { event in
            events.continuation.yield(event)
        }
        let running = Task { await pipeline.run() }
        pipeline.setClaimed(true)
        await source.waitForOpenCalls(1)
        for index in 0..<2000 {
            pipeline.setClaimed(index % 2 == 1)
            if index % 100 == 0 { await Task.yield() }
        }
        pipeline.setClaimed(false)
        // The sensor closes once, after the delay: the events say so, in order.
        var activity: [Bool] = []
        for await event in events.stream {
            if case .sensorActive(let active) = event { activity.append(active) }
            if activity.last == false { break }
        }
        #expect(activity == [true, false], "a toggle within the delay reopened the sensor")
        #expect(source.openCalls.load(ordering: .relaxed) == 1)
        pipeline.setClaimed(true)
        await source.waitForOpenCalls(2)
        pipeline.finish()
        await running.value
        #expect(source.openStreams.load(ordering: .relaxed) == 0)
    }
}
