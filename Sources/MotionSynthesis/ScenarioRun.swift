import OrientationCore

/// One scenario run through a detector at one sample rate, judged against its expectations.
public struct ScenarioRun: Sendable {
    /// The longest a deliberate turn may take to be published after the device comes to rest,
    /// at 50 Hz or more (the acceptance bar of issue 2).
    public static let latencyBudget = 0.3
    /// Sample rates from which ``latencyBudget`` applies.
    public static let latencyBudgetMinimumRate = 50.0
    /// The first decision of a stream must come within this many seconds.
    public static let firstDecisionBudget = 1.0
    /// An orientation published and then reverted within this many seconds is flicker, unless
    /// the scenario expects that return as a deliberate move (a short hold, then back).
    public static let flickerWindow = 1.0

    public let scenario: Scenario
    public let rate: Double
    public let gyroscope: Bool
    public let events: [OrientationEvent]
    /// For each expectation with a rest time, the event's delay after it (seconds).
    public let latencies: [Double]
    /// Every violated expectation, as a sentence; empty when the run passes.
    public let failures: [String]

    /// Runs `scenario` at `rate` Hz through a fresh detector with `configuration`.
    public init(_ scenario: Scenario, rate: Double, gyroscope: Bool,
                configuration: OrientationDetector.Configuration = .init()) throws {
        self.scenario = scenario
        self.rate = rate
        self.gyroscope = gyroscope
        var detector = try OrientationDetector(configuration: configuration)
        let samples = scenario.samples(rate: rate, gyroscope: gyroscope)
        var events: [OrientationEvent] = []
        for sample in samples {
            if let event = detector.process(sample) { events.append(event) }
        }
        self.events = events

        var failures: [String] = []
        var latencies: [Double] = []
        let got = events.map(\.orientation), want = scenario.expected.map(\.orientation)
        if got != want {
            failures.append("events \(Self.describe(events)) but expected \(want.map(\.rawValue).joined(separator: ", "))")
        } else {
            for (event, expectation) in zip(events, scenario.expected) {
                if let moveStart = expectation.moveStart, event.time < moveStart {
                    failures.append("\(event.orientation) at \(Self.format(event.time)) s, before the move began at \(Self.format(moveStart)) s")
                }
                guard let rest = expectation.restTime else { continue }
                let latency = event.time - rest
                latencies.append(latency)
                if rate >= Self.latencyBudgetMinimumRate, latency > Self.latencyBudget {
                    failures.append("\(event.orientation) came \(Self.format(latency)) s after the device came to rest (budget \(Self.latencyBudget) s)")
                }
            }
            if let first = events.first, let start = samples.first?.time, first.time - start > Self.firstDecisionBudget {
                failures.append("first decision took \(Self.format(first.time - start)) s")
            }
        }
        // A return the specification expects (a short hold, then back: a deliberate move with a
        // rest time) is not flicker, however soon it comes.
        let deliberate = got == want ? scenario.expected.map { $0.restTime != nil } : Array(repeating: false, count: events.count)
        for (k, (a, b)) in zip(events, events.dropFirst()).enumerated()
        where b.orientation == a.previous && b.time - a.time < Self.flickerWindow && !deliberate[k + 1] {
            failures.append("flicker: \(a.orientation) at \(Self.format(a.time)) s reverted to \(b.orientation) at \(Self.format(b.time)) s")
        }
        self.latencies = latencies
        self.failures = failures
    }

    static func describe(_ events: [OrientationEvent]) -> String {
        events.isEmpty ? "(none)" : events.map { "\($0.orientation)@\(format($0.time))" }.joined(separator: ", ")
    }

    static func format(_ value: Double) -> String {
        let scaled = (value * 1000).rounded() / 1000
        return "\(scaled)"
    }
}
