import OrientationCore
import OrientationProtocol
import PostureCore
import PostureSynthesis
import SensorLog

/// `evaluate`'s judgement of one convertible's posture events, from a log (against the truth it
/// states in `expected-posture` metadata, ``PostureScenarioLog``) or a posture scenario (against
/// its specification): the rules of ``PostureScenarioRun/judge(events:holds:expected:expectedHolds:firstSampleTime:)``.
struct PostureVerdict {
    /// Whether there was a truth to judge against (a log may state none).
    var judged: Bool
    var events: Int
    var failures: [String]
    var latencies: [Double]

    /// What the posture numbers mean (standard error, after the orientation's legend).
    static let legend = "posture: judged by the posture specification's rules (DETECTOR.md, \"The posture detector\"): exactly the expected postures in order, "
        + "none before its move began, each within 0.8 s of the machine coming to rest; latency: from rest to the event"

    init(_ run: PostureScenarioRun) {
        judged = true
        events = run.events.count
        failures = run.failures
        latencies = run.latencies
    }

    /// A log's posture run, judged against the truth its metadata states, if it states one.
    /// - Throws: an `expected-posture` or `expected-holds` entry that does not parse.
    init(_ replay: PostureReplay, metadata: SensorLogMetadata) throws(PostureScenarioLog.ExpectationError) {
        events = replay.events.count
        guard let truth = try PostureScenarioLog.expectations(in: metadata) else {
            judged = false
            failures = []
            latencies = []
            return
        }
        judged = true
        (latencies, failures) = PostureScenarioRun.judge(events: replay.events, holds: replay.holds, expected: truth.expected,
                                                         expectedHolds: truth.holds, firstSampleTime: replay.firstTime)
    }

    /// `PASS, 6 events; latency median 0.420 s, max 0.510 s`, `FAIL (…; …), 5 events`, or
    /// `6 events, not judged (the log states no expected-posture)`.
    var text: String {
        let count = "\(events) event\(events == 1 ? "" : "s")"
        guard judged else { return "\(count), not judged (the log states no \(PostureScenarioLog.expectedKey))" }
        var line = (failures.isEmpty ? "PASS" : "FAIL (\(failures.joined(separator: "; ")))") + ", " + count
        if let median = PostureTally.median(latencies), let max = latencies.max() {
            line += "; latency median \(EventFormat.fixed(median, decimals: 3)) s, max \(EventFormat.fixed(max, decimals: 3)) s"
        }
        return line
    }

    /// The members `evaluate --json` adds to a convertible's log's object: `posture_events`,
    /// `posture_pass` (`null` when not judged), `posture_failures`, `posture_latency_median`,
    /// `posture_latency_max` (seconds, or `null`).
    var jsonMembers: [(String, JSONValue)] {
        let seconds = { (x: Double?) -> JSONValue in x.map { .number(($0 * 1e6).rounded() / 1e6) } ?? .null }
        return [
            ("posture_events", .number(Double(events))),
            ("posture_pass", judged ? .bool(failures.isEmpty) : .null),
            ("posture_failures", .array(failures.map { .string($0) })),
            ("posture_latency_median", seconds(PostureTally.median(latencies))),
            ("posture_latency_max", seconds(latencies.max())),
        ]
    }
}
