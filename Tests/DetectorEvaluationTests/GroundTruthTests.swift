@testable import DetectorEvaluation
import OrientationCore
import Testing

/// Rules 1–3 of ``GroundTruth``: the low-pass, each label's limits, and how runs are formed.
@Suite struct GroundTruthTests {
    struct LabelCase: Sendable, CustomStringConvertible {
        let tilt: Double, angle: Double, expected: DeviceOrientation?
        var description: String { "tilt \(tilt)°, angle \(angle)°" }
    }

    static let labels: [LabelCase] = [
        .init(tilt: 80, angle: 0, expected: .faceUp),
        .init(tilt: 75, angle: 45, expected: .faceUp),           // the face limit is inclusive, any direction
        .init(tilt: 74.9, angle: 0, expected: nil),              // between the limits: no label
        .init(tilt: 60, angle: 0, expected: nil),
        .init(tilt: -75, angle: 10, expected: .faceDown),
        .init(tilt: -74.9, angle: 10, expected: nil),
        .init(tilt: 55, angle: 0, expected: .portrait),          // the in-plane limit is inclusive
        .init(tilt: 55.1, angle: 0, expected: nil),
        .init(tilt: -55, angle: 180, expected: .portraitUpsideDown),
        .init(tilt: 30, angle: 30, expected: .portrait),         // 30° off the edge still counts
        .init(tilt: 30, angle: 30.1, expected: nil),
        .init(tilt: 30, angle: 45, expected: nil),               // the diagonal belongs to nobody
        .init(tilt: 30, angle: 60, expected: .landscapeLeft),
        .init(tilt: 0, angle: 90, expected: .landscapeLeft),
        .init(tilt: 0, angle: 180, expected: .portraitUpsideDown),
        .init(tilt: 0, angle: 270, expected: .landscapeRight),
        .init(tilt: 10, angle: 330, expected: .portrait),        // wraps around 360
        .init(tilt: 10, angle: 329.9, expected: nil),
        .init(tilt: .nan, angle: 0, expected: nil),
    ]

    @Test(arguments: labels)
    func label(_ row: LabelCase) {
        #expect(GroundTruth.label(tilt: row.tilt, angle: row.angle) == row.expected)
    }

    @Test func lowPassIsExponentialWithTheDocumentedAlpha() throws {
        // A step from portrait to landscape-left sampled every 0.1 s: α = 0.1 / (0.3 + 0.1) = 0.25.
        let g = 9.80665
        let samples = [
            Sample(time: 0, acceleration: Vector3(0, -g, 0)),
            Sample(time: 0.1, acceleration: Vector3(-g, 0, 0)),
            Sample(time: 0.2, acceleration: Vector3(-g, 0, 0)),
        ]
        let truth = GroundTruth(samples: samples)
        #expect(truth.points[0].gravity == Vector3(0, -g, 0))  // starts from the first sample
        let second = truth.points[1].gravity
        #expect(abs(second.x - -0.25 * g) < 1e-12 && abs(second.y - -0.75 * g) < 1e-12)
        let third = truth.points[2].gravity
        #expect(abs(third.x - -(0.25 + 0.75 * 0.25) * g) < 1e-12)
    }

    @Test func ignoredSamplesAreSkippedAsTheDetectorSkipsThem() {
        let samples = [
            Sample(time: 0, acceleration: Vector3(0, -9.8, 0)),
            Sample(time: 0.1, acceleration: Vector3(.nan, 0, 0)),
            Sample(time: 0.2, acceleration: Vector3(0, 0, 0)),
            Sample(time: 0.3, acceleration: Vector3(.infinity, 0, 0)),
            Sample(time: 0.4, acceleration: Vector3(0, -9.8, 0)),
        ]
        let truth = GroundTruth(samples: samples)
        #expect(truth.points.map(\.time) == [0, 0.4])
        #expect(truth.points.allSatisfy { $0.label == .portrait })
    }

    /// Stretches of (tilt, angle) sampled at 100 Hz, as labelled points.
    static func points(_ stretches: [(tilt: Double, angle: Double, from: Double, to: Double)]) -> [GroundTruth.Point] {
        var points: [GroundTruth.Point] = []
        for stretch in stretches {
            var k = Int((stretch.from * 100).rounded())
            while Double(k) / 100 < stretch.to - 1e-9 {
                let t = Double(k) / 100
                points.append(GroundTruth.Point(time: t, gravity: .zero, tilt: stretch.tilt, angle: stretch.angle,
                                                label: GroundTruth.label(tilt: stretch.tilt, angle: stretch.angle)))
                k += 1
            }
        }
        return points
    }

    struct RunCase: Sendable, CustomStringConvertible {
        let name: String
        let stretches: [(tilt: Double, angle: Double, from: Double, to: Double)]
        let expected: [(DeviceOrientation, Double, Double)]
        var description: String { name }
    }

    static let runCases: [RunCase] = [
        .init(name: "one run per label change",
              stretches: [(30, 0, 0, 5), (30, 90, 5, 10)],
              expected: [(.portrait, 0, 4.99), (.landscapeLeft, 5, 9.99)]),
        .init(name: "a run shorter than 0.5 s is dropped and its neighbours merge",
              stretches: [(30, 0, 0, 5), (30, 90, 5, 5.4), (30, 0, 5.4, 10)],
              expected: [(.portrait, 0, 9.99)]),
        .init(name: "a run of exactly 0.5 s counts",
              stretches: [(30, 0, 0, 5), (30, 90, 5, 5.51), (30, 0, 5.51, 10)],
              expected: [(.portrait, 0, 4.99), (.landscapeLeft, 5, 5.5), (.portrait, 5.51, 9.99)]),
        .init(name: "runs of one label merge across an unlabelled gap",
              stretches: [(30, 0, 0, 5), (65, 0, 5, 8), (30, 0, 8, 10)],
              expected: [(.portrait, 0, 9.99)]),
        .init(name: "an unlabelled stretch alone is no run",
              stretches: [(65, 0, 0, 10)],
              expected: []),
        .init(name: "face states are runs like any other",
              stretches: [(80, 0, 0, 3), (30, 270, 3, 6), (-80, 0, 6, 9)],
              expected: [(.faceUp, 0, 2.99), (.landscapeRight, 3, 5.99), (.faceDown, 6, 8.99)]),
    ]

    @Test(arguments: runCases)
    func runs(_ row: RunCase) {
        let truth = GroundTruth(points: Self.points(row.stretches))
        #expect(truth.runs.count == row.expected.count)
        for (run, (orientation, start, end)) in zip(truth.runs, row.expected) {
            #expect(run.orientation == orientation)
            #expect(abs(run.start - start) < 1e-9 && abs(run.end - end) < 1e-9, "\(run)")
        }
    }
}
