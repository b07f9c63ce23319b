import OrientationCore
import SensorLifecycle
import Testing

/// The release delay every sensor kind shares (issue 29, item 2): the accelerometer's pipeline
/// and the light, proximity and compass service decide with this one rule.
@Suite struct ReleaseDelayTests {
    struct Row: Sendable, CustomStringConvertible {
        let name: String
        /// (time, claimed) changes, in order.
        let changes: [(Double, Bool)]
        let now: Double
        /// What `remaining(after: 1, now:)` says.
        let expected: Double?
        var description: String { name }
    }

    static let rows: [Row] = [
        Row(name: "never claimed: nothing to keep open", changes: [], now: 5, expected: 1),
        Row(name: "claimed", changes: [(0, true)], now: 5, expected: nil),
        Row(name: "released at 2: closes at 3", changes: [(0, true), (2, false)], now: 2.25, expected: 0.75),
        Row(name: "released at 2, asked at 4: close now", changes: [(0, true), (2, false)], now: 4, expected: -1),
        Row(name: "a second release does not extend the delay", changes: [(0, true), (2, false), (2.5, false)], now: 2.5, expected: 0.5),
        Row(name: "a claim within the delay keeps it open", changes: [(0, true), (2, false), (2.5, true)], now: 3.5, expected: nil),
        Row(name: "released again: a fresh delay", changes: [(0, true), (2, false), (2.5, true), (2.7, false)], now: 3, expected: 0.7),
        Row(name: "a toggling client: dated by the last release after a claim",
            changes: (0..<1000).map { (Double($0) * 0.001, $0 % 2 == 0) }, now: 1.0, expected: 0.999),
    ]

    @Test(arguments: rows)
    func theSensorClosesADelayAfterTheLastRelease(_ row: Row) {
        var delay = ReleaseDelay()
        for (time, claimed) in row.changes { delay.update(claimed: claimed, now: time) }
        let remaining = delay.remaining(after: 1, now: row.now)
        if let expected = row.expected {
            #expect(remaining.map { abs($0 - expected) < 1e-9 } == true, "\(row.name): \(String(describing: remaining))")
        } else {
            #expect(remaining == nil, "\(row.name)")
        }
    }
}
