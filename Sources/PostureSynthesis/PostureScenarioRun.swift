import OrientationCore
import PostureCore

/// One ``PostureScenario`` run through a ``PostureDetector`` at one sample rate, judged against
/// its expectations.
public struct PostureScenarioRun: Sendable {
    /// The longest a deliberate change of posture may take to be published after the machine
    /// comes to rest (`motion-holdoff` + `settle-time` + the filters' lag, with room for 10 Hz).
    public static let latencyBudget = 0.8
    /// The first decision of a stream must come within this many seconds.
    public static let firstDecisionBudget = 1.5

    public let scenario: PostureScenario
    public let rate: Double
    public let events: [PostureEvent]
    /// Every hold reason the detector gave during the run.
    public let holds: Set<PostureHold>
    /// For each expectation with a rest time, the event's delay after it (seconds).
    public let latencies: [Double]
    /// Every violated expectation, as a sentence; empty when the run passes.
    public let failures: [String]

    /// Runs `scenario` at `rate` Hz through a fresh detector with `configuration`: each raw
    /// reading goes through its sensor's mount matrix first, and lid switch changes are fed in
    /// time order with the samples.
    public init(_ scenario: PostureScenario, rate: Double, configuration: PostureDetector.Configuration = .init()) throws {
        self.scenario = scenario
        self.rate = rate
        var detector = try PostureDetector(configuration: configuration)
        let samples = scenario.script.samples(rate: rate, seed: scenario.seed)
        var events: [PostureEvent] = []
        var holds: Set<PostureHold> = []
        var lid = scenario.lidChanges[...]
        for var sample in samples {
            while let change = lid.first, change.time <= sample.time {
                if let event = detector.setLidSwitch(closed: change.closed, at: change.time) { events.append(event) }
                lid = lid.dropFirst()
            }
            let mount = sample.location == .display ? scenario.script.displayMount : scenario.script.baseMount
            sample.acceleration = mount.apply(sample.acceleration)
            if let event = detector.process(sample) { events.append(event) }
            if let hold = detector.hold { holds.insert(hold) }
        }
        self.events = events
        self.holds = holds

        let verdict = Self.judge(events: events, holds: holds, expected: scenario.expected, expectedHolds: scenario.expectedHolds,
                                 firstSampleTime: samples.first?.time)
        self.latencies = verdict.latencies
        self.failures = verdict.failures
    }

    /// Judges `events` against `expected` by the specification's rules: exactly the expected
    /// postures in order, none before its move began, each within ``latencyBudget`` of rest, a
    /// first decision (an expectation without a rest time) within ``firstDecisionBudget`` of
    /// `firstSampleTime`, a hinge angle within 0…360 on every known posture, and every hold in
    /// `expectedHolds` given at some point. The same rules for a synthesised run and for a
    /// recording that states what it expects (`orientationctl evaluate`).
    ///
    /// - Returns: the latency after rest of each expectation that has a rest time (only when the
    ///   postures match), and every violated rule as a sentence (empty: it passes).
    public static func judge(events: [PostureEvent], holds: Set<PostureHold>, expected: [PostureScenario.Expectation],
                             expectedHolds: Set<PostureHold> = [], firstSampleTime: Double?) -> (latencies: [Double], failures: [String]) {
        var failures: [String] = []
        var latencies: [Double] = []
        let got = events.map(\.posture), want = expected.map(\.posture)
        if got != want {
            failures.append("events \(Self.describe(events)) but expected \(want.map(\.rawValue).joined(separator: ", "))")
        } else {
            for (event, expectation) in zip(events, expected) {
                if let moveStart = expectation.moveStart, event.time < moveStart {
                    failures.append("\(event.posture) at \(Self.format(event.time)) s, before the move began at \(Self.format(moveStart)) s")
                }
                guard let rest = expectation.restTime else { continue }
                let latency = event.time - rest
                latencies.append(latency)
                let budget = expectation.latencyBudget ?? Self.latencyBudget
                if latency > budget {
                    failures.append("\(event.posture) came \(Self.format(latency)) s after the machine came to rest (budget \(budget) s)")
                }
            }
            if let first = events.first, expected.first?.restTime == nil, let start = firstSampleTime,
               first.time - start > Self.firstDecisionBudget {
                failures.append("first decision took \(Self.format(first.time - start)) s")
            }
        }
        for event in events where event.posture != .unknown {
            if let angle = event.hingeAngle, angle >= 0, angle <= 360 { continue }
            failures.append("\(event.posture) at \(Self.format(event.time)) s carries no hinge angle within 0…360")
        }
        let missing = expectedHolds.subtracting(holds)
        if !missing.isEmpty {
            failures.append("never held for \(missing.map(\.rawValue).sorted().joined(separator: ", "))")
        }
        return (latencies, failures)
    }

    static func describe(_ events: [PostureEvent]) -> String {
        events.isEmpty ? "(none)" : events.map { "\($0.posture)@\(format($0.time))" }.joined(separator: ", ")
    }

    static func format(_ value: Double) -> String {
        "\((value * 1000).rounded() / 1000)"
    }
}
