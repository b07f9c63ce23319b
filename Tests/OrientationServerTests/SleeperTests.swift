import OrientationCore
import OrientationDaemon
import SensorLifecycle
import SensorPipeline
import Testing

/// The daemon's timers wait on SwiftNIO's event loops (`Sleeper.onEventLoops`, so that an idle
/// daemon never starts libdispatch's pool and its 1 Hz monitor): the same contract as
/// `Task.sleep`, which `Sleeper.task` is.
@Suite struct SleeperTests {
    static let sleepers: [(name: String, sleeper: Sleeper)] = [("event loops", .onEventLoops), ("Task.sleep", .task)]

    @Test(arguments: sleepers)
    func waitsAtLeastTheTimeAsked(_ row: (name: String, sleeper: Sleeper)) async throws {
        let start = ContinuousClock.now
        try await row.sleeper.sleep(seconds: 0.05)
        #expect(ContinuousClock.now - start >= .milliseconds(50), "\(row.name)")
    }

    @Test(arguments: sleepers)
    func aCancelledWaitThrowsCancellationErrorAtOnce(_ row: (name: String, sleeper: Sleeper)) async {
        let waiting = Task { try await row.sleeper.sleep(seconds: 3600) }
        waiting.cancel()
        let result = await waiting.result  // an hour's wait would hang the test: cancellation ends it
        #expect(throws: CancellationError.self, "\(row.name)") { try result.get() }
    }

    @Test(arguments: sleepers)
    func anAlreadyCancelledTaskDoesNotWait(_ row: (name: String, sleeper: Sleeper)) async {
        let result = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await row.sleeper.sleep(seconds: 3600)
        }.result
        #expect(throws: CancellationError.self, "\(row.name)") { try result.get() }
    }

    @Test(arguments: sleepers)
    func unusableDurationsAreClampedNotTrapped(_ row: (name: String, sleeper: Sleeper)) async throws {
        for seconds in [-1, .nan, 0] as [Double] { try await row.sleeper.sleep(seconds: seconds) }
    }
}
