import Glibc
import MotionSynthesis
import OrientationCore
import PostureCore

/// A scripted handling of a convertible, turned into the readings of its two accelerometers (one
/// in the display, one in the base) at any rate by rigid-body kinematics: the posture
/// detector's counterpart of ``MotionScript``.
///
/// The script is a sequence of holds and moves between ``ConvertiblePose``s (minimum-jerk, as
/// human movements are), plus hand tremor and sway while it is held, walking while it is
/// carried, and sensor noise. Each sensor sits away from the hinge, so opening the lid and
/// carrying the machine give the centripetal and linear accelerations a real accelerometer
/// sees. The readings come out in each sensor's own axes (the inverse of its mount matrix
/// applied), so that a consumer exercises the mount matrices as the daemon will.
/// Everything is deterministic for a seed.
public struct ConvertibleScript: Sendable {
    /// A move (or a hold, when `from == to`) over `[start, start + duration]`.
    public struct Segment: Hashable, Sendable {
        public var start: Double
        public var duration: Double
        public var from: ConvertiblePose
        public var to: ConvertiblePose
        /// Held in hands (tremor and sway apply) rather than resting on something.
        public var handHeld: Bool
        public var end: Double { start + duration }
    }

    /// Walking with the machine over an interval: vertical bounce at the step frequency and
    /// sideways sway at half of it (peak accelerations, m/s²).
    public struct Walk: Hashable, Sendable {
        public var start: Double
        public var duration: Double
        public var stepFrequency = 1.9
        public var bounce = 2.5
        public var sway = 0.8
    }

    public let start: ConvertiblePose
    public private(set) var segments: [Segment] = []
    public private(set) var walks: [Walk] = []
    /// The display's and the base's mount matrices (sensor axes to canonical axes). Must be
    /// orthonormal (every hwdb matrix is a signed permutation): readings are produced with the
    /// transpose.
    public var displayMount = MountMatrix.identity
    public var baseMount = MountMatrix.identity
    /// Where each sensor sits in its half's canonical frame, relative to the middle of the hinge
    /// (metres).
    public var displayOffset = Vector3(0.06, 0.17, 0.004)
    public var baseOffset = Vector3(-0.08, 0.12, 0.008)
    /// Hand tremor (degrees, ~9 Hz) and sway (degrees, < 1 Hz) while hand-held.
    public var tremor = 0.15
    public var handSway = 2.0
    /// Accelerometer noise, standard deviation in m/s² (each sensor its own).
    public var accelerometerNoise = 0.04
    /// The base sensor's samples come this fraction of a period after the display's (the two
    /// are separate chips, not sampled together).
    public var basePhase = 0.5
    public var gravity = 9.80665

    public init(start: ConvertiblePose) {
        self.start = start
    }

    /// The script's end time.
    public var duration: Double { segments.last?.end ?? 0 }

    /// The pose at the end of the script so far.
    public var currentPose: ConvertiblePose { segments.last?.to ?? start }

    /// Stays in the current pose for `duration` seconds, resting (or `handHeld`).
    public mutating func hold(_ duration: Double, handHeld: Bool = false) {
        segments.append(Segment(start: self.duration, duration: duration, from: currentPose, to: currentPose, handHeld: handHeld))
    }

    /// Moves to `pose` over `duration` seconds; returns the time the machine comes to rest.
    @discardableResult
    public mutating func move(to pose: ConvertiblePose, duration: Double, handHeld: Bool = false) -> Double {
        segments.append(Segment(start: self.duration, duration: duration, from: currentPose, to: pose, handHeld: handHeld))
        return self.duration
    }

    /// Walks for `duration` seconds from now, carrying the machine in the current pose.
    public mutating func walk(for duration: Double, bounce: Double = 2.5) {
        walks.append(Walk(start: self.duration, duration: duration, bounce: bounce))
        hold(duration, handHeld: true)
    }

    // MARK: - Kinematics

    /// How long tremor and sway take to fade in or out at the ends of a hand-held stretch, s.
    static let handRamp = 0.4

    /// The pose at `t`, with tremor and sway while hand-held.
    func pose(at t: Double, phases: (Double, Double, Double, Double)) -> ConvertiblePose {
        var pose = start
        for segment in segments where t >= segment.start {
            let s = MotionScript.minimumJerk((t - segment.start) / segment.duration)
            pose = ConvertiblePose(pitch: segment.from.pitch + (segment.to.pitch - segment.from.pitch) * s,
                                   roll: segment.from.roll + (segment.to.roll - segment.from.roll) * s,
                                   hinge: segment.from.hinge + (segment.to.hinge - segment.from.hinge) * s)
        }
        // Tremor and sway fade in and out over `handRamp` at the ends of each hand-held stretch
        // (adjacent hand-held segments are one stretch): a step in attitude would be a step in
        // the sensors' positions, an infinite acceleration no hand produces.
        var weight = 0.0
        var stretchStart: Double? = nil
        for (index, segment) in segments.enumerated() where segment.handHeld {
            if stretchStart == nil { stretchStart = segment.start }
            let continues = index + 1 < segments.count && segments[index + 1].handHeld
            if !continues, let begin = stretchStart {
                weight = max(weight, MotionScript.envelope(t, start: begin, duration: segment.end - begin, ramp: Self.handRamp))
                stretchStart = nil
            }
        }
        if weight > 0 {
            let tau = 2 * Double.pi
            pose.pitch += weight * (tremor * sin(tau * 8.7 * t + phases.0) + handSway * sin(tau * 0.29 * t + phases.1))
            pose.roll += weight * (tremor * sin(tau * 10.3 * t + phases.2) + handSway * sin(tau * 0.41 * t + phases.3))
        }
        return pose
    }

    /// The base's and the display's canonical axes in world coordinates (x right, y away from
    /// the viewer, z up).
    static func axes(_ pose: ConvertiblePose) -> (base: (x: Vector3, y: Vector3, z: Vector3), display: (x: Vector3, y: Vector3, z: Vector3)) {
        let p = pose.pitch * Double.pi / 180, r = pose.roll * Double.pi / 180, h = pose.hinge * Double.pi / 180
        // On the table: x right, y toward the viewer (front edge), z down.
        var x = Vector3(1, 0, 0), y = Vector3(0, -1, 0), z = Vector3(0, 0, -1)
        // Pitch about the base's x.
        (y, z) = (y * cos(p) + z * sin(p), y * -sin(p) + z * cos(p))
        // Roll about the base's own y.
        (x, z) = (x * cos(r) - z * sin(r), x * sin(r) + z * cos(r))
        // The display, turned by the hinge angle about the base's x.
        let dy = y * cos(h) - z * sin(h), dz = y * sin(h) + z * cos(h)
        return ((x, y, z), (x, dy, dz))
    }

    /// World position of the hinge's middle (metres): walking bounce and sway.
    func hingePosition(at t: Double) -> Vector3 {
        var p = Vector3.zero
        let tau = 2 * Double.pi
        for walk in walks {
            let e = MotionScript.envelope(t, start: walk.start, duration: walk.duration, ramp: 0.5)
            guard e > 0 else { continue }
            let w = tau * walk.stepFrequency
            p += Vector3(-e * walk.sway / (w * w / 4) * sin(w / 2 * t), 0, -e * walk.bounce / (w * w) * sin(w * t))
        }
        return p
    }

    /// The ideal (noise-free) canonical readings of both sensors at `t`.
    func ideal(at t: Double, phases: (Double, Double, Double, Double)) -> (display: Vector3, base: Vector3) {
        let step = 1e-3
        func positions(_ t: Double) -> (display: Vector3, base: Vector3, axes: (base: (x: Vector3, y: Vector3, z: Vector3), display: (x: Vector3, y: Vector3, z: Vector3))) {
            let frames = Self.axes(pose(at: t, phases: phases))
            let hinge = hingePosition(at: t)
            let b = hinge + frames.base.x * baseOffset.x + frames.base.y * baseOffset.y + frames.base.z * baseOffset.z
            let d = hinge + frames.display.x * displayOffset.x + frames.display.y * displayOffset.y + frames.display.z * displayOffset.z
            return (d, b, frames)
        }
        let now = positions(t), before = positions(t - step), after = positions(t + step)
        let scale = 1 / (step * step)
        let displayAcceleration = (after.display - now.display * 2 + before.display) * scale
        let baseAcceleration = (after.base - now.base * 2 + before.base) * scale
        // The canonical reading is the gravity vector minus linear acceleration, in the half's axes.
        func reading(_ acceleration: Vector3, _ frame: (x: Vector3, y: Vector3, z: Vector3)) -> Vector3 {
            let g = Vector3(0, 0, -gravity) - acceleration
            return Vector3(g.dot(frame.x), g.dot(frame.y), g.dot(frame.z))
        }
        return (reading(displayAcceleration, now.axes.display), reading(baseAcceleration, now.axes.base))
    }

    /// `Mᵀ · v`: the sensor-axes reading whose canonical form, `M · raw`, is `v`.
    static func unmounted(_ v: Vector3, _ m: MountMatrix) -> Vector3 {
        Vector3(m[0, 0] * v.x + m[1, 0] * v.y + m[2, 0] * v.z,
                m[0, 1] * v.x + m[1, 1] * v.y + m[2, 1] * v.z,
                m[0, 2] * v.x + m[1, 2] * v.y + m[2, 2] * v.z)
    }

    // MARK: - Sampling

    /// Samples both sensors at `rate` Hz, merged in time order, each reading in its sensor's own
    /// axes: apply ``displayMount`` or ``baseMount`` to get the canonical readings
    /// ``PostureDetector`` takes.
    public func samples(rate: Double, seed: UInt64 = 1) -> [PostureSample] {
        var rng = SplitMix64(seed: seed)
        let tau = 2 * Double.pi
        let phases = (rng.uniform() * tau, rng.uniform() * tau, rng.uniform() * tau, rng.uniform() * tau)
        let period = 1 / rate
        let count = Int((duration * rate).rounded(.down))
        var samples: [PostureSample] = []
        samples.reserveCapacity(2 * count + 2)
        for k in 0...count {
            for location in PostureSample.Location.allCases {
                let t = Double(k) * period + (location == .base ? basePhase * period : 0)
                guard t <= duration else { continue }
                let ideal = ideal(at: t, phases: phases)
                let noise = Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * accelerometerNoise
                let canonical = (location == .display ? ideal.display : ideal.base) + noise
                let raw = Self.unmounted(canonical, location == .display ? displayMount : baseMount)
                samples.append(PostureSample(time: t, location: location, acceleration: raw))
            }
        }
        return samples
    }
}
