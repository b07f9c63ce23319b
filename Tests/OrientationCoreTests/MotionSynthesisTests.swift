import MotionSynthesis
import OrientationCore
import Testing

/// The scenario suite is only as good as its generator: check the physics it synthesises.
@Suite struct MotionSynthesisTests {
    static func quiet(_ pose: Pose) -> MotionScript {
        var script = MotionScript(start: pose)
        script.tremor = 0
        script.handSway = 0
        script.accelerometerNoise = 0
        script.gyroscopeNoise = 0
        script.gyroscopeBias = .zero
        return script
    }

    struct PoseRow: Sendable, CustomStringConvertible {
        let pose: Pose
        let gravity: Vector3
        var description: String { "angle \(pose.angle) tilt \(pose.tilt)" }
    }

    static let poses: [PoseRow] = [
        .init(pose: Pose(angle: 0, tilt: 0), gravity: Vector3(0, -9.80665, 0)),
        .init(pose: Pose(angle: 90, tilt: 0), gravity: Vector3(-9.80665, 0, 0)),
        .init(pose: Pose(angle: -90, tilt: 0), gravity: Vector3(9.80665, 0, 0)),
        .init(pose: Pose(angle: 180, tilt: 0), gravity: Vector3(0, 9.80665, 0)),
        .init(pose: Pose(angle: 0, tilt: 90), gravity: Vector3(0, 0, -9.80665)),
        .init(pose: Pose(angle: 0, tilt: -90), gravity: Vector3(0, 0, 9.80665)),
    ]

    @Test("a still pose reads gravity in screen axes", arguments: poses)
    func stillPoseReadsGravity(_ row: PoseRow) throws {
        var script = Self.quiet(row.pose)
        script.hold(1)
        let sample = try #require(script.samples(rate: 10, gyroscope: true).last)
        #expect((sample.acceleration - row.gravity).length < 1e-3)
        #expect(try #require(sample.angularRate).length < 1e-6)
    }

    @Test func aTurnReadsItsAngularRateAboutTheScreenNormal() throws {
        var script = Self.quiet(.portrait(tilt: 0))
        script.pivotOffset = .zero
        script.move(to: .landscapeLeft(tilt: 0), duration: 1)
        // Mid-turn, minimum jerk peaks at 1.875 × 90°/s, counter-clockwise = +z.
        let mid = script.samples(rate: 100, gyroscope: true).first { abs($0.time - 0.5) < 1e-9 }
        let rate = try #require(mid?.angularRate)
        #expect(abs(rate.z - 1.875 * Double.pi / 2) < 1e-3)
        #expect(abs(rate.x) < 1e-6 && abs(rate.y) < 1e-6)
    }

    @Test func walkingBouncesWithTheRequestedAcceleration() {
        var script = Self.quiet(.portrait(tilt: 0))
        script.walks.append(.init(start: 0, duration: 10, bounce: 2.5, sway: 0, bob: 0))
        script.hold(10)
        let magnitudes = script.samples(rate: 200).filter { $0.time > 2 && $0.time < 8 }.map(\.acceleration.length)
        let swing = (magnitudes.max() ?? 0) - (magnitudes.min() ?? 0)
        #expect(abs(swing - 5.0) < 0.2)
    }

    @Test func samplingHonoursGapsJitterAndOrder() {
        var script = MotionScript(start: .portrait())
        script.hold(10)
        let samples = script.samples(rate: 50, jitter: 0.8, gaps: [2...4], seed: 9)
        #expect(!samples.contains { (2...4).contains($0.time) })
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.time < $1.time })
        #expect(samples.count > 380 && samples.count < 410)
        #expect(samples == script.samples(rate: 50, jitter: 0.8, gaps: [2...4], seed: 9), "deterministic for a seed")
    }
}
