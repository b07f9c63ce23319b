@testable import DetectorEvaluation
import OrientationCore
import Testing

/// Rule 4 of ``GroundTruth`` (issue 41, `evaluate --short-tilt`): a run shorter than the limit
/// between two runs of one label is a tilt that returns, not a turn.
@Suite struct ShortTiltTruthTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        /// Runs as (orientation, start, end).
        let runs: [(DeviceOrientation, Double, Double)]
        let limit: Double
        let expected: [(DeviceOrientation, Double, Double)]
        var description: String { name }
    }

    static let cases: [Case] = [
        .init(name: "a 1 s landscape between two portraits is dropped, the portraits merge",
              runs: [(.portrait, 0, 5), (.landscapeLeft, 5.5, 6.5), (.portrait, 7, 12)], limit: 1.5,
              expected: [(.portrait, 0, 12)]),
        .init(name: "one of 1.5 s is a turn (the limit is exclusive)",
              runs: [(.portrait, 0, 5), (.landscapeLeft, 5.5, 7), (.portrait, 7.5, 12)], limit: 1.5,
              expected: [(.portrait, 0, 5), (.landscapeLeft, 5.5, 7), (.portrait, 7.5, 12)]),
        .init(name: "a short run between two different labels is a step of a real turn",
              runs: [(.portrait, 0, 5), (.faceUp, 5.5, 6), (.landscapeLeft, 6.5, 12)], limit: 1.5,
              expected: [(.portrait, 0, 5), (.faceUp, 5.5, 6), (.landscapeLeft, 6.5, 12)]),
        .init(name: "the first and last runs have one neighbour: kept however short",
              runs: [(.faceUp, 0, 0.6), (.portrait, 1, 5), (.landscapeLeft, 5.5, 6)], limit: 1.5,
              expected: [(.faceUp, 0, 0.6), (.portrait, 1, 5), (.landscapeLeft, 5.5, 6)]),
        .init(name: "merging closes another triple: both tilts go",
              runs: [(.portrait, 0, 3), (.faceUp, 3.2, 4), (.portrait, 4.2, 4.8), (.landscapeLeft, 5, 6), (.portrait, 6.2, 9)],
              limit: 1.5, expected: [(.portrait, 0, 9)]),
        .init(name: "limit 0 (the default) changes nothing",
              runs: [(.portrait, 0, 5), (.landscapeLeft, 5.5, 6.5), (.portrait, 7, 12)], limit: 0,
              expected: [(.portrait, 0, 5), (.landscapeLeft, 5.5, 6.5), (.portrait, 7, 12)]),
    ]

    @Test(arguments: cases)
    func rule4(_ row: Case) {
        let runs = row.runs.map { TruthRun(orientation: $0.0, start: $0.1, end: $0.2) }
        let kept = GroundTruth.withoutShortTilts(runs, shorterThan: row.limit)
        #expect(kept.map(\.orientation) == row.expected.map(\.0))
        #expect(kept.map(\.start) == row.expected.map(\.1))
        #expect(kept.map(\.end) == row.expected.map(\.2))
    }

    /// End to end: a landscape glance of about 1 s between portrait holds is two transitions
    /// the detector publishes by default, and with the rule an event the truth does not explain.
    @Test func aGlanceScoresAsSpuriousOnlyWithTheRule() throws {
        var samples: [Sample] = []
        let g = 9.80665
        for k in 0..<(12 * 50) {
            let t = Double(k) / 50
            let landscape = t >= 5 && t < 6.1
            let a = landscape ? Vector3(-g, 0, 0) : Vector3(0, -g, 0)
            samples.append(Sample(time: t, acceleration: a))
        }
        let plain = try RecordingEvaluation(samples: samples)
        #expect(plain.score.transitions == 3 && plain.score.spurious == 0, "\(plain.score)")
        let rule = try RecordingEvaluation(samples: samples, shortTilts: GroundTruth.shortTiltLimit)
        #expect(rule.score.transitions == 1, "\(rule.score)")
        #expect(rule.score.spurious == 2, "the detector turned for the glance and back: \(rule.score)")
        #expect(rule.events == plain.events)
    }
}
