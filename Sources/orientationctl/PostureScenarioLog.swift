import ConfigFileFormat
import OrientationCore
import PostureCore
import PostureSynthesis
import SensorLog

/// A posture scenario (``PostureScenarioCatalog``) as a convertible's log (v3): what
/// `simulate --posture NAME --output FILE` writes, and the `expected-posture` metadata through
/// which `evaluate` scores such a log (or any recording annotated the same way) against its
/// own truth.
///
/// The rows are the two sensors' readings in their canonical frames (each mount matrix applied,
/// and named in `mount-matrix` and `base-mount-matrix`), one row per instant: the display's and
/// the base's at their own times (the base half a period after the display), a lid-switch state
/// on the row of its time (a row of its own when no reading shares it).
struct PostureScenarioLog {
    var metadata: SensorLogMetadata
    var records: [SensorLogRecord]
    var hasLid: Bool

    /// The metadata key of one expected posture event: `POSTURE [rest SECONDS] [move SECONDS]`.
    static let expectedKey = "expected-posture"
    /// The metadata key of the hold reasons the recording must show: a comma-separated list.
    static let expectedHoldsKey = "expected-holds"

    init(_ scenario: PostureScenario, rate: Double) {
        let script = scenario.script
        var metadata = SensorLogMetadata()
        metadata.append(key: "source", value: "orientationctl simulate --posture \"\(scenario.name)\" --rate \(EventFormat.fixed(rate, decimals: 0)) (seed \(scenario.seed))")
        metadata.append(key: "device", value: "simulated convertible, display accelerometer")
        metadata.append(key: "mount-matrix", value: script.displayMount.description)
        metadata.append(key: "base-device", value: "simulated convertible, base accelerometer")
        metadata.append(key: "base-mount-matrix", value: script.baseMount.description)
        metadata.append(key: "sample-rate", value: EventFormat.fixed(rate, decimals: 0))
        metadata.append(key: "licence", value: "CC0-1.0")
        for expectation in scenario.expected {
            var value = expectation.posture.rawValue
            if let rest = expectation.restTime { value += " rest \(EventFormat.seconds(rest))" }
            if let move = expectation.moveStart { value += " move \(EventFormat.seconds(move))" }
            if let budget = expectation.latencyBudget { value += " budget \(EventFormat.seconds(budget))" }
            metadata.append(key: Self.expectedKey, value: value)
        }
        if !scenario.expectedHolds.isEmpty {
            metadata.append(key: Self.expectedHoldsKey, value: scenario.expectedHolds.map(\.rawValue).sorted().joined(separator: ", "))
        }
        var records: [SensorLogRecord] = []
        var lid = scenario.lidChanges[...]
        func row(at time: Double) -> Int {
            // The same instant, or one the log's 1 µs cannot tell from it (a lid change's time
            // and a reading's, each a sum of decimals, need not agree to the last bit): one row,
            // or the writer would refuse the second.
            if let last = records.last, abs(last.time - time) < SensorLogWriter.timeResolution { return records.count - 1 }
            records.append(SensorLogRecord(time: time))
            return records.count - 1
        }
        for sample in script.samples(rate: rate, seed: scenario.seed) {
            while let change = lid.first, change.time <= sample.time {
                if let closed = change.closed { records[row(at: change.time)].lidClosed = closed }
                lid = lid.dropFirst()
            }
            let index = row(at: sample.time)
            switch sample.location {
            case .display: records[index].acceleration = script.displayMount.apply(sample.acceleration)
            case .base: records[index].base = script.baseMount.apply(sample.acceleration)
            }
        }
        self.metadata = metadata
        self.records = records
        hasLid = scenario.lidChanges.contains { $0.closed != nil }
    }

    /// The expectations a log states (`expected-posture`, `expected-holds`), or `nil` when it
    /// states none.
    /// - Throws: a message naming the entry that does not parse.
    static func expectations(in metadata: SensorLogMetadata) throws(ExpectationError) -> (expected: [PostureScenario.Expectation], holds: Set<PostureHold>)? {
        var expected: [PostureScenario.Expectation] = []
        for entry in metadata.entries where entry.key == expectedKey {
            let words = entry.value.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = words.first, let posture = Posture(rawValue: String(first)) else {
                throw ExpectationError("\(expectedKey) \"\(entry.value)\": must start with a posture (\(Posture.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            var expectation = PostureScenario.Expectation(posture)
            var rest = words.dropFirst()
            while let word = rest.first {
                guard rest.count >= 2, let value = ConfigNumber.decimal(rest.dropFirst().first!), word == "rest" || word == "move" || word == "budget" else {
                    throw ExpectationError("\(expectedKey) \"\(entry.value)\": expected \"POSTURE [rest SECONDS] [move SECONDS] [budget SECONDS]\"")
                }
                switch word {
                case "rest": expectation.restTime = value
                case "move": expectation.moveStart = value
                default: expectation.latencyBudget = value
                }
                rest = rest.dropFirst(2)
            }
            expected.append(expectation)
        }
        var holds: Set<PostureHold> = []
        if let text = metadata[expectedHoldsKey] {
            for name in text.split(separator: ",").map({ String($0).trimmingBlanks() }) where !name.isEmpty {
                guard let hold = PostureHold(rawValue: name) else {
                    throw ExpectationError("\(expectedHoldsKey) \"\(text)\": \"\(name)\" is not a hold reason (\(PostureHold.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                holds.insert(hold)
            }
        }
        return expected.isEmpty && holds.isEmpty ? nil : (expected, holds)
    }

    /// A log's `expected-posture` or `expected-holds` entry that does not parse.
    struct ExpectationError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
