@testable import DetectorEvaluation
import OrientationCore
import SensorLog
import Testing

/// evaluate and plot judge a log as the daemon would have published it: a recording made with
/// a wrong scale (a driver's `in_accel_scale` off by a constant, issue 16) is rescaled by the
/// same `GravityNormalizer` as the pipeline, so its score and drawing are those of the right
/// scale; a right one is untouched.
@Suite struct WrongScaleEvaluationTests {
    static let handheld: [Sample] = {
        let root = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        var reader = try! SensorLogReader(path: root + "/data/xio-fusion/handheld.log")
        return try! reader.readAll()
    }()

    @Test(arguments: [26.0, 0.001, 1000.0])
    func aWrongScaleScoresAsTheRightOne(_ factor: Double) throws {
        let right = try RecordingEvaluation(samples: Self.handheld, ignoreGyroscope: true)
        let scaled = Self.handheld.map { sample in
            var copy = sample
            copy.acceleration = sample.acceleration * factor
            return copy
        }
        let wrong = try RecordingEvaluation(samples: scaled, ignoreGyroscope: true)
        #expect(right.score.transitions > 0 && right.score.missed == 0)
        #expect(wrong.score.transitions == right.score.transitions)
        #expect(wrong.score.matched == right.score.matched, "×\(factor): \(wrong.score.matched) of \(right.score.transitions) matched")
        #expect(wrong.events.map(\.orientation) == right.events.map(\.orientation), "×\(factor)")
        let plot = try TimelinePlot(samples: scaled, name: "×\(factor)", ignoreGyroscope: true)
        #expect(plot.evaluation.events.map(\.orientation) == right.events.map(\.orientation))
    }
}
