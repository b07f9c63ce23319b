import SensorDeviceAccess
import SensorIIO
import Synchronization
import Testing

@Suite struct SuspendWatchTests {
    final class Clocks: Sendable {
        let value = Mutex((boottime: 1000.0, monotonic: 400.0))
        var clocks: SystemClocks { SystemClocks { [self] in value.withLock { $0 } } }
        func advance(awake: Double, asleep: Double = 0) {
            value.withLock { $0 = ($0.boottime + awake + asleep, $0.monotonic + awake) }
        }
    }

    /// Table: (seconds awake, seconds asleep) between checks → what the watch reports.
    static let steps: [(awake: Double, asleep: Double, reported: Double?)] = [
        (0.25, 0, nil),      // running normally
        (10, 0, nil),        // a long refill wait is not a suspend
        (0.1, 0.4, nil),     // below the threshold
        (0.1, 45, 45),       // a suspend of 45 s
        (0.1, 0, nil),       // reported once
        (3, 3600, 3600),     // an hour in a bag
    ]

    @Test func reportsEachSuspendOnceAndNothingElse() {
        let source = Clocks()
        var watch = SuspendWatch(clocks: source.clocks)
        for step in Self.steps {
            source.advance(awake: step.awake, asleep: step.asleep)
            let slept = watch.sleptSinceLastCheck()
            if let expected = step.reported {
                #expect(slept.map { abs($0 - expected) < 1e-6 } == true, "\(step)")
            } else {
                #expect(slept == nil, "\(step)")
            }
        }
    }

    @Test func theSystemClocksDifferOnlyByTimeAsleep() {
        var watch = SuspendWatch(clocks: .system)
        #expect(watch.sleptSinceLastCheck() == nil)
    }
}
