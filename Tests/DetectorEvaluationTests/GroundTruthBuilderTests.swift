@testable import DetectorEvaluation
import MotionSynthesis
import OrientationCore
import SensorLog
import Testing
import Glibc

/// Issue 18, item 4: `evaluate` streams a log through a `GroundTruthBuilder` that keeps only
/// the runs and the points scoring reads. Its score must equal the one against the full truth
/// (every point kept), on every bundled recording and every scenario, with and without the
/// gyroscope; and the points it keeps must not grow with the log.
@Suite struct GroundTruthBuilderTests {
    static func fullScore(_ samples: [Sample], ignoreGyroscope: Bool) throws -> (EvaluationScore, [TruthRun]) {
        var detector = try OrientationDetector(configuration: .init())
        var events: [OrientationEvent] = []
        for var sample in samples {
            if ignoreGyroscope { sample.angularRate = nil }
            if let event = detector.process(sample) { events.append(event) }
        }
        let truth = GroundTruth(samples: samples)
        return (EvaluationScore(events: events, truth: truth), truth.runs)
    }

    @Test(arguments: TimelinePlotTests.bundledLogs, [false, true])
    func aStreamedLogScoresAsTheWholeOne(_ path: String, ignoreGyroscope: Bool) throws {
        var reader = try SensorLogReader(path: path)
        let samples = try reader.readAll()
        let (full, runs) = try Self.fullScore(samples, ignoreGyroscope: ignoreGyroscope)
        var streamed = try SensorLogReader(path: path)
        let evaluation = try RecordingEvaluation(ignoreGyroscope: ignoreGyroscope) { try streamed.next() }
        #expect(evaluation.score == full)
        #expect(evaluation.truth.runs == runs)
        #expect(evaluation.truth.points.count < samples.count / 4 || samples.count < 100)
    }

    @Test func everyScenarioScoresAsTheWholeOne() throws {
        var excused = 0
        for scenario in ScenarioCatalog.all {
            for gyroscope in [true, false] {
                let samples = scenario.samples(rate: 50, gyroscope: gyroscope)
                let (full, runs) = try Self.fullScore(samples, ignoreGyroscope: false)
                let streamed = try RecordingEvaluation(samples: samples)
                #expect(streamed.score == full, "\(scenario.name)")
                #expect(streamed.truth.runs == runs, "\(scenario.name)")
                excused += full.excused.count
            }
        }
        // The rule the kept points serve (ambiguous tilt) must be exercised, or this proves nothing.
        #expect(excused > 0)
    }

    /// An event in a long stretch of ambiguous tilt keeps the window around it, not the stretch.
    @Test func keptPointsAreBoundedByTheEventsNotTheLog() {
        var builder = GroundTruthBuilder()
        let tilted = Vector3(0, -9.80665 * cos(65 * Double.pi / 180), -9.80665 * sin(65 * Double.pi / 180))
        for k in 0..<100_000 {
            builder.add(Sample(time: Double(k) * 0.01, acceleration: tilted))
            if k == 50_000 { builder.keepPoints(around: Double(k) * 0.01) }
        }
        let truth = builder.finish()
        // 0.5 s each side at 100 Hz, and the last point.
        #expect(truth.points.count <= 103)
        #expect(truth.points.count >= 100)
        #expect(truth.points.last?.time == 999.99)
    }
}
