import Glibc
import Logging
import OrientationCore
@testable import OrientationDaemon
import OrientationServer
import SensorPipeline
import Synchronization
import Testing

/// Issue 8, item 3: `WATCHDOG=1` only while the pipeline really works. A source whose reader
/// stops returning (as one stuck in the kernel would: no sample, no error, no stall timeout)
/// must stop the pings; when it delivers again they resume.
@Suite struct WatchdogTests {
    /// A sensor that delivers a sample every 10 ms until paused; paused, `next()` simply does
    /// not return (until resumed or cancelled).
    final class StallableSource: SensorSource, Sendable {
        let paused = Atomic<Bool>(false)
        /// Set once a reader is inside the paused loop: from then on no sample is delivered.
        let stalled = Atomic<Bool>(false)
        let delivered = Atomic<Int>(0)
        let opens = Atomic<Int>(0)
        var name: String { "stallable" }
        var progressLimit: Double? { 0.3 }

        func open() async throws -> any SampleStream {
            opens.add(1, ordering: .relaxed)
            return Stream(source: self)
        }

        final class Stream: SampleStream {
            let source: StallableSource
            var time = 0.0
            init(source: StallableSource) { self.source = source }

            func next() async throws -> Sample? {
                while source.paused.load(ordering: .acquiring) {
                    source.stalled.store(true, ordering: .releasing)
                    try await Task.sleep(for: .milliseconds(5))  // a reader that never returns
                }
                source.stalled.store(false, ordering: .releasing)
                try await Task.sleep(for: .milliseconds(10))  // a sensor's pace
                time += 0.01
                source.delivered.add(1, ordering: .relaxed)
                return Sample(time: time, acceleration: Vector3(0, -9.81, 0))
            }

            func close() async {}
        }
    }

    final class Lines: Sendable {
        let all = Mutex<[String]>([])
        var pings: Int { all.withLock { $0.filter { $0 == "WATCHDOG=1" }.count } }
    }

    /// Polls `condition` (a pipeline's progress is not awaitable from outside) with a deadline.
    /// The deadline is long on purpose: the other suites of this target are synchronous and
    /// block while they wait for processes and sockets, and Swift Testing runs them on the same
    /// cooperative pool, two threads on a 2-core machine. Two of them at once starve every async
    /// test (CI saw this one wait over 10 s for six 10 ms samples). A passing test returns as
    /// soon as the condition holds.
    func eventually(_ seconds: Double = 60, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: .seconds(seconds))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func aPipelineThatStopsDeliveringStopsThePingsAndTheyResumeWithIt() async throws {
        let harness = try await ServerHarness.start()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let source = StallableSource()
        let pipeline = try SensorPipeline(source: source, configuration: .init(), logger: logger) { _ in }
        let running = Task { await pipeline.run() }
        pipeline.setClaimed(true)
        let lines = Lines()
        let watchdog = WatchdogService(interval: 0.1, health: pipeline.health, hub: harness.server.hub, status: { "test" },
                                       logger: logger, notify: { line in lines.all.withLock { $0.append(line) } })
        let pinging = Task { try await watchdog.run() }

        #expect(await eventually { lines.pings >= 3 && source.delivered.load(ordering: .relaxed) > 10 }, "pings while samples flow")
        source.paused.store(true, ordering: .releasing)
        // Once the reader is inside the pause (a sample already under way when the flag was set
        // still arrives, and on a loaded machine the deadline can pass before it does).
        #expect(await eventually { source.stalled.load(ordering: .acquiring) && !pipeline.health.isAlive }, "the stuck reader is noticed")
        // At most one ping was already on its way when the deadline passed.
        let afterStall = lines.pings
        try await Task.sleep(for: .milliseconds(600))  // six watchdog intervals: a window for "no ping"
        #expect(lines.pings <= afterStall + 1, "no pings while stuck: \(lines.pings - afterStall) more")
        source.paused.store(false, ordering: .releasing)
        let beforeResume = lines.pings
        #expect(await eventually { lines.pings >= beforeResume + 2 }, "pings resume with the samples")
        #expect(lines.all.withLock { $0.contains("STATUS=test") })

        pinging.cancel()
        pipeline.finish()
        await running.value
        await harness.stop()
    }

    /// A reload reopens the sensor only when the detector's configuration really changed; a
    /// bad one changes nothing.
    @Test func reconfigureReopensOnlyForAChangedConfiguration() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let source = StallableSource()
        let pipeline = try SensorPipeline(source: source, configuration: .init(), logger: logger) { _ in }
        let running = Task { await pipeline.run() }
        pipeline.setClaimed(true)
        #expect(await eventually { source.opens.load(ordering: .relaxed) == 1 && source.delivered.load(ordering: .relaxed) > 5 },
                "opens \(source.opens.load(ordering: .relaxed)), delivered \(source.delivered.load(ordering: .relaxed))")
        try pipeline.reconfigure(.init())  // unchanged
        var changed = OrientationDetector.Configuration()
        changed.settleTime = 0.3
        #expect(throws: ConfigurationError.self) {
            var bad = OrientationDetector.Configuration()
            bad.settleTime = -1
            try pipeline.reconfigure(bad)
        }
        try pipeline.reconfigure(changed)
        #expect(await eventually { source.opens.load(ordering: .relaxed) == 2 }, "a changed configuration reopens")
        let delivered = source.delivered.load(ordering: .relaxed)
        #expect(await eventually { source.delivered.load(ordering: .relaxed) > delivered + 20 })
        #expect(source.opens.load(ordering: .relaxed) == 2, "neither the unchanged nor the bad configuration reopened")
        pipeline.finish()
        await running.value
    }

    @Test func anUnclaimedPipelineAndAReplayHaveNoDeadline() async throws {
        let health = PipelineHealth()
        #expect(health.isAlive)
        health.expectProgress(within: nil)
        #expect(health.isAlive)
        health.expectProgress(within: -1)
        #expect(!health.isAlive && health.overdueSeconds > 0)
        health.expectProgress(within: 60)
        #expect(health.isAlive && health.overdueSeconds == 0)
    }
}
