@testable import DetectorEvaluation
import OrientationCore
import Testing

/// The scoring rules of ``EvaluationScore``, one row per rule and per exception.
@Suite struct EvaluationScoreTests {
    typealias Stretch = (tilt: Double, angle: Double, from: Double, to: Double)

    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let stretches: [Stretch]
        let events: [(Double, DeviceOrientation)]
        let matched: Int, missed: Int, spurious: Int, excused: Int
        /// Runs already shown before they began, with no event inside (issue 20).
        var shown = 0
        var description: String { name }
    }

    // Portrait 0–5 s, landscape-left 5–10 s (both at 30° tilt), the log ends at 9.99 s.
    static let turn: [Stretch] = [(30, 0, 0, 5), (30, 90, 5, 10)]
    // Portrait 0–5 s, then leaned back to 65° (no label) still pointing to portrait, 5–10 s.
    static let leanBack: [Stretch] = [(30, 0, 0, 5), (65, 0, 5, 10)]

    static let cases: [Case] = [
        .init(name: "each transition matched by its event", stretches: turn,
              events: [(0.1, .portrait), (5.2, .landscapeLeft)], matched: 2, missed: 0, spurious: 0, excused: 0),
        .init(name: "an event up to 0.5 s before the previous run ends still matches", stretches: turn,
              events: [(0.1, .portrait), (4.6, .landscapeLeft)], matched: 2, missed: 0, spurious: 0, excused: 0),
        // Before issue 20 the transition also counted as missed; now the detector already shows
        // landscape-left when the run begins, with no event inside it, so it is not.
        .init(name: "an event earlier than that is spurious, and the run already shown", stretches: turn,
              events: [(0.1, .portrait), (4.3, .landscapeLeft)], matched: 1, missed: 0, spurious: 1, excused: 0, shown: 1),
        .init(name: "an event after its run ended does not match", stretches: [(30, 0, 0, 5), (30, 90, 5, 10), (80, 0, 10, 15)],
              events: [(0.1, .portrait), (10.5, .landscapeLeft), (10.6, .faceUp)], matched: 2, missed: 1, spurious: 1, excused: 0),
        .init(name: "an event naming another state does not match", stretches: turn,
              events: [(0.1, .portrait), (5.2, .landscapeRight)], matched: 1, missed: 1, spurious: 1, excused: 0),
        .init(name: "no event: every transition missed", stretches: turn,
              events: [], matched: 0, missed: 2, spurious: 0, excused: 0),
        .init(name: "unknown events are ignored and repeats collapse", stretches: turn,
              events: [(0.1, .portrait), (2, .unknown), (2.5, .portrait), (5.2, .landscapeLeft)],
              matched: 2, missed: 0, spurious: 0, excused: 0),
        .init(name: "an event matches at most one transition", stretches: [(30, 0, 0, 5), (30, 90, 5, 10), (30, 0, 10, 15)],
              events: [(0.1, .portrait), (5.2, .landscapeLeft)], matched: 2, missed: 1, spurious: 0, excused: 0),
        // Issue 20: a stretch whose state the detector already shows before it begins, with no
        // event inside it, needs no event and is not missed.
        .init(name: "already shown: the return to a state never left after an ignored hold",
              stretches: [(30, 0, 0, 5), (30, 90, 5, 5.8), (30, 0, 5.8, 10)],
              events: [(0.1, .portrait)], matched: 1, missed: 1, spurious: 0, excused: 0, shown: 1),
        .init(name: "already shown: the previous run's event, shown on through the next one",
              stretches: [(30, 0, 0, 5), (30, 90, 5, 10), (30, 0, 10, 15)],
              events: [(0.1, .portrait), (5.2, .landscapeLeft), (9.4, .portrait)], matched: 2, missed: 0, spurious: 1, excused: 0, shown: 1),
        .init(name: "not shown: an event inside the stretch, even one naming another state",
              stretches: [(30, 0, 0, 5), (30, 90, 5, 5.8), (30, 0, 5.8, 10)],
              events: [(0.1, .portrait), (7, .landscapeRight)], matched: 1, missed: 2, spurious: 1, excused: 0),
        .init(name: "not shown: the detector showed another state before it began",
              stretches: [(30, 0, 0, 5), (30, 90, 5, 5.8), (30, 0, 5.8, 10)],
              events: [(0.1, .portrait), (4.0, .landscapeRight)], matched: 1, missed: 2, spurious: 1, excused: 0),
        .init(name: "not shown: the first stretch (the detector shows unknown before it)", stretches: turn,
              events: [], matched: 0, missed: 2, spurious: 0, excused: 0),
        .init(name: "an event early by the tolerance still matches, not shown", stretches: turn,
              events: [(0.1, .portrait), (4.6, .landscapeLeft)], matched: 2, missed: 0, spurious: 0, excused: 0),
        .init(name: "a flash in between is spurious", stretches: turn,
              events: [(0.1, .portrait), (2, .landscapeRight), (2.4, .portrait), (5.2, .landscapeLeft)],
              matched: 2, missed: 0, spurious: 2, excused: 0),
        .init(name: "exception: an event in the log's last 0.5 s", stretches: turn,
              events: [(0.1, .portrait), (5.2, .landscapeLeft), (9.6, .faceUp)], matched: 2, missed: 0, spurious: 0, excused: 1),
        .init(name: "but not one just before that", stretches: turn,
              events: [(0.1, .portrait), (5.2, .landscapeLeft), (9.4, .faceUp)], matched: 2, missed: 0, spurious: 1, excused: 0),
        .init(name: "exception: lasting face-up at an ambiguous tilt (leaning back)", stretches: leanBack,
              events: [(0.1, .portrait), (6, .faceUp)], matched: 1, missed: 0, spurious: 0, excused: 1),
        .init(name: "exception: the last in-plane state at an ambiguous tilt", stretches: [(30, 90, 0, 5), (65, 0, 5, 10)],
              events: [(0.1, .landscapeLeft), (6, .faceUp), (7.5, .landscapeLeft)], matched: 1, missed: 0, spurious: 0, excused: 2),
        .init(name: "exception: the state the direction points to at an ambiguous tilt", stretches: [(30, 90, 0, 5), (65, 0, 5, 10)],
              events: [(0.1, .landscapeLeft), (6, .portrait)], matched: 1, missed: 0, spurious: 0, excused: 1),
        .init(name: "ambiguous tilt, but another state entirely", stretches: leanBack,
              events: [(0.1, .portrait), (6, .landscapeRight)], matched: 1, missed: 0, spurious: 1, excused: 0),
        .init(name: "ambiguous tilt, but it did not last a second", stretches: leanBack,
              events: [(0.1, .portrait), (6, .faceUp), (6.5, .portrait)], matched: 1, missed: 0, spurious: 1, excused: 1),
        .init(name: "ambiguous tilt on the face-up side does not excuse face-down", stretches: leanBack,
              events: [(0.1, .portrait), (6, .faceDown)], matched: 1, missed: 0, spurious: 1, excused: 0),
        .init(name: "exception: face-down on the face-down side", stretches: [(30, 0, 0, 5), (-65, 0, 5, 10)],
              events: [(0.1, .portrait), (6, .faceDown)], matched: 1, missed: 0, spurious: 0, excused: 1),
        .init(name: "the ambiguous tilt must be within 0.5 s of the event",
              stretches: [(30, 0, 0, 5), (65, 0, 5, 6), (30, 270, 6, 10)],
              events: [(0.1, .portrait), (6.7, .faceUp), (8, .landscapeRight)], matched: 2, missed: 0, spurious: 1, excused: 0),
        .init(name: "...and counts when it is", stretches: [(30, 0, 0, 5), (65, 0, 5, 6), (30, 270, 6, 10)],
              events: [(0.1, .portrait), (6.4, .faceUp), (8, .landscapeRight)], matched: 2, missed: 0, spurious: 0, excused: 1),
    ]

    @Test(arguments: cases)
    func scoring(_ row: Case) {
        let truth = GroundTruth(points: GroundTruthTests.points(row.stretches))
        var previous = DeviceOrientation.unknown
        let events = row.events.map { time, orientation in
            defer { previous = orientation }
            return OrientationEvent(time: time, orientation: orientation, previous: previous)
        }
        let score = EvaluationScore(events: events, truth: truth)
        #expect(score.matched == row.matched, "matched")
        #expect(score.missed == row.missed, "missed")
        #expect(score.spurious == row.spurious, "spurious \(score.spuriousEvents)")
        #expect(score.excusedEvents.count == row.excused, "excused \(score.excused)")
        #expect(score.alreadyShown == row.shown, "shown \(score.shownRuns)")
        #expect(score.transitions == score.matched + score.missed)
        #expect(score.transitions + score.alreadyShown == truth.runs.count)
    }

    @Test func latencyIsEventTimeMinusRunStartAndPoolsAcrossLogs() {
        let truth = GroundTruth(points: GroundTruthTests.points(Self.turn))
        let a = EvaluationScore(events: [OrientationEvent(time: 0.1, orientation: .portrait, previous: .unknown),
                                         OrientationEvent(time: 4.7, orientation: .landscapeLeft, previous: .portrait)], truth: truth)
        #expect(a.latencies.map { ($0 * 1000).rounded() / 1000 } == [0.1, -0.3])
        #expect(abs(a.latencyMedian! - -0.1) < 1e-9)  // an even count: the mean of the middle two
        #expect(a.latencyMax == 0.1)
        let b = EvaluationScore(events: [OrientationEvent(time: 0.5, orientation: .portrait, previous: .unknown)], truth: truth)
        let total = a + b
        #expect(total.matched == 3 && total.missed == 1 && total.transitions == 4)
        #expect(total.latencyMedian == 0.1)  // −0.3, 0.1, 0.5
        #expect(total.latencyMax == 0.5)
        #expect(EvaluationScore().latencyMedian == nil && EvaluationScore().latencyMax == nil)
    }
}
