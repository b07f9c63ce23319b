import Glibc
import OrientationCore

/// A scripted motion of a hand-held device, turned into realistic accelerometer (and gyroscope)
/// samples at any rate by rigid-body kinematics.
///
/// The script is a sequence of holds and moves between ``Pose``s (moves follow a minimum-jerk
/// profile, as human reaching movements do), plus disturbances layered on top: hand tremor and
/// sway, walking, shakes, translations (putting the device down) and sensor noise. The device
/// turns about a pivot (the wrist) offset from its centre, so rotations carry the centripetal and
/// tangential accelerations a real accelerometer sees. Everything is deterministic for a seed.
public struct MotionScript: Sendable {
    /// A move (or a hold, when `from == to`) over `[start, start + duration]`.
    public struct Segment: Hashable, Sendable {
        public var start: Double
        public var duration: Double
        public var from: Pose
        public var to: Pose
        public var end: Double { start + duration }
    }

    /// Vigorous back-and-forth shaking along the device's x axis, with some wrist roll.
    public struct Shake: Hashable, Sendable {
        public var start: Double
        public var duration: Double
        public var frequency: Double = 4
        /// Peak linear acceleration, m/s².
        public var acceleration: Double = 15
        /// Peak in-plane wobble, degrees.
        public var roll: Double = 15

        public init(start: Double, duration: Double, frequency: Double = 4, acceleration: Double = 15, roll: Double = 15) {
            self.start = start
            self.duration = duration
            self.frequency = frequency
            self.acceleration = acceleration
            self.roll = roll
        }
    }

    /// Walking while holding the device: vertical bounce at the step frequency, sideways sway at
    /// half of it, and a matching bob of the hand.
    public struct Walking: Hashable, Sendable {
        public var start: Double
        public var duration: Double
        public var stepFrequency: Double = 1.9
        /// Peak vertical acceleration, m/s².
        public var bounce: Double = 2.5
        /// Peak sideways acceleration, m/s².
        public var sway: Double = 0.8
        /// Peak tilt bob, degrees.
        public var bob: Double = 3

        public init(start: Double, duration: Double, stepFrequency: Double = 1.9, bounce: Double = 2.5, sway: Double = 0.8, bob: Double = 3) {
            self.start = start
            self.duration = duration
            self.stepFrequency = stepFrequency
            self.bounce = bounce
            self.sway = sway
            self.bob = bob
        }
    }

    /// A displacement of the whole hand (world axes, metres: x right, y away from the viewer,
    /// z up) over an interval, with a minimum-jerk profile.
    public struct Translation: Hashable, Sendable {
        public var start: Double
        public var duration: Double
        public var displacement: Vector3

        public init(start: Double, duration: Double, displacement: Vector3) {
            self.start = start
            self.duration = duration
            self.displacement = displacement
        }
    }

    /// The pose at time 0.
    public let start: Pose
    public private(set) var segments: [Segment] = []
    public var shakes: [Shake] = []
    public var walks: [Walking] = []
    public var translations: [Translation] = []
    /// Where the device's centre sits relative to the pivot (wrist), in device axes, metres.
    public var pivotOffset = Vector3(0, 0.07, 0.02)
    /// Hand tremor amplitude (degrees, ~8–12 Hz) and slow sway amplitude (degrees, < 1 Hz).
    /// Zero for a device resting on a table or a stand.
    public var tremor: Double = 0.1
    public var handSway: Double = 1.5
    /// Accelerometer noise (standard deviation, m/s²) and gyroscope noise (rad/s).
    public var accelerometerNoise: Double = 0.04
    public var gyroscopeNoise: Double = 0.008
    /// Constant gyroscope bias, rad/s (a real, uncalibrated gyroscope has one).
    public var gyroscopeBias = Vector3(0.004, -0.003, 0.002)
    /// How late the gyroscope's readings are against the accelerometer's, seconds (a phone's
    /// gyroscope is a separate sensor with its own clock and filter delay).
    public var gyroscopeDelay: Double = 0
    /// Gravity, m/s².
    public var gravity: Double = 9.80665

    public init(start: Pose) {
        self.start = start
    }

    /// The script's end time.
    public var duration: Double { segments.last?.end ?? 0 }

    /// The pose at the end of the script so far.
    public var currentPose: Pose { segments.last?.to ?? start }

    /// Stays still (apart from disturbances) for `duration` seconds.
    public mutating func hold(_ duration: Double) {
        let pose = currentPose
        segments.append(Segment(start: self.duration, duration: duration, from: pose, to: pose))
    }

    /// Moves to `pose` over `duration` seconds; returns the time the device comes to rest.
    @discardableResult
    public mutating func move(to pose: Pose, duration: Double) -> Double {
        segments.append(Segment(start: self.duration, duration: duration, from: currentPose, to: pose))
        return self.duration
    }

    /// Adds a shake starting now (at the current end of the script) and holds through it.
    public mutating func shake(for duration: Double, frequency: Double = 4, acceleration: Double = 15, roll: Double = 15) {
        shakes.append(Shake(start: self.duration, duration: duration, frequency: frequency, acceleration: acceleration, roll: roll))
        hold(duration)
    }

    // MARK: - Kinematics

    /// Minimum-jerk position profile on [0, 1].
    @inline(__always)
    public static func minimumJerk(_ s: Double) -> Double {
        let u = min(max(s, 0), 1)
        return u * u * u * (10 + u * (-15 + 6 * u))
    }

    /// A smooth 0→1→0 envelope over [start, start + duration] with `ramp`-second edges.
    @inline(__always)
    public static func envelope(_ t: Double, start: Double, duration: Double, ramp: Double = 0.15) -> Double {
        guard t > start, t < start + duration else { return 0 }
        let r = min(ramp, duration / 2)
        let rise = minimumJerk((t - start) / r), fall = minimumJerk((start + duration - t) / r)
        return min(rise, fall)
    }

    /// Pose angles (degrees) at time t, disturbances included.
    func attitude(at t: Double, phases: Phases) -> (angle: Double, tilt: Double) {
        var angle = start.angle, tilt = start.tilt
        // Binary search would be faster; scripts have tens of segments, samples thousands.
        for segment in segments where t >= segment.start {
            let s = Self.minimumJerk((t - segment.start) / segment.duration)
            angle = segment.from.angle + (segment.to.angle - segment.from.angle) * s
            tilt = segment.from.tilt + (segment.to.tilt - segment.from.tilt) * s
        }
        let tau = 2 * Double.pi
        angle += tremor * (sin(tau * 9.1 * t + phases.a) + 0.6 * sin(tau * 11.7 * t + phases.b))
        tilt += tremor * (sin(tau * 8.3 * t + phases.c) + 0.6 * sin(tau * 10.9 * t + phases.d))
        angle += handSway * (sin(tau * 0.31 * t + phases.e) + 0.5 * sin(tau * 0.73 * t + phases.f))
        tilt += handSway * (sin(tau * 0.27 * t + phases.f) + 0.5 * sin(tau * 0.61 * t + phases.a))
        for shake in shakes {
            let e = Self.envelope(t, start: shake.start, duration: shake.duration)
            if e > 0 { angle += e * shake.roll * sin(tau * shake.frequency * (t - shake.start)) }
        }
        for walk in walks {
            let e = Self.envelope(t, start: walk.start, duration: walk.duration, ramp: 0.5)
            if e > 0 {
                tilt += e * walk.bob * sin(tau * walk.stepFrequency * t)
                angle += e * walk.bob * 0.5 * sin(tau * walk.stepFrequency / 2 * t + 0.7)
            }
        }
        return (angle, tilt)
    }

    /// Device axes in world coordinates (the columns of the device→world rotation).
    /// World: x right, y away from the viewer, z up. Device: x right edge, y top edge, z out of
    /// the screen. Turn in-plane by `angle` about the device's z, then lean back by `tilt` about
    /// the world x axis.
    static func axes(angle: Double, tilt: Double) -> (x: Vector3, y: Vector3, z: Vector3) {
        let a = angle * Double.pi / 180, b = tilt * Double.pi / 180
        let ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b)
        // Before the tilt: x = (ca, 0, sa), y = (−sa, 0, ca), z = (0, −1, 0).
        // Rotation about world x by −tilt: (x, y, z) → (x, y·cb + z·sb, −y·sb + z·cb).
        func lean(_ v: Vector3) -> Vector3 { Vector3(v.x, v.y * cb + v.z * sb, -v.y * sb + v.z * cb) }
        return (lean(Vector3(ca, 0, sa)), lean(Vector3(-sa, 0, ca)), lean(Vector3(0, -1, 0)))
    }

    /// World position of the device's centre, metres.
    func position(at t: Double, axes: (x: Vector3, y: Vector3, z: Vector3)) -> Vector3 {
        var p = axes.x * pivotOffset.x + axes.y * pivotOffset.y + axes.z * pivotOffset.z
        for move in translations {
            p += move.displacement * Self.minimumJerk((t - move.start) / move.duration)
        }
        let tau = 2 * Double.pi
        for walk in walks {
            let e = Self.envelope(t, start: walk.start, duration: walk.duration, ramp: 0.5)
            guard e > 0 else { continue }
            let w = tau * walk.stepFrequency
            // Displacement whose second derivative has the requested peak acceleration.
            p += Vector3(-e * walk.sway / (w * w / 4) * sin(w / 2 * t), 0, -e * walk.bounce / (w * w) * sin(w * t))
        }
        for shake in shakes {
            let e = Self.envelope(t, start: shake.start, duration: shake.duration)
            guard e > 0 else { continue }
            let w = tau * shake.frequency
            p += axes.x * (-e * shake.acceleration / (w * w) * sin(w * (t - shake.start)))
        }
        return p
    }

    /// Random phases of the tremor and sway oscillators, fixed per seed.
    struct Phases {
        var a, b, c, d, e, f: Double
        init(_ rng: inout SplitMix64) {
            let tau = 2 * Double.pi
            a = rng.uniform() * tau; b = rng.uniform() * tau; c = rng.uniform() * tau
            d = rng.uniform() * tau; e = rng.uniform() * tau; f = rng.uniform() * tau
        }
    }

    /// The ideal (noise-free) accelerometer reading and angular rate at time t.
    func ideal(at t: Double, phases: Phases) -> (acceleration: Vector3, angularRate: Vector3) {
        let h = 1e-3
        func frame(_ t: Double) -> (x: Vector3, y: Vector3, z: Vector3) {
            let (angle, tilt) = attitude(at: t, phases: phases)
            return Self.axes(angle: angle, tilt: tilt)
        }
        let now = frame(t), before = frame(t - h), after = frame(t + h)
        let acceleration = (position(at: t + h, axes: after) - position(at: t, axes: now) * 2
            + position(at: t - h, axes: before)) * (1 / (h * h))
        // The canonical reading is the gravity vector minus linear acceleration, in device axes.
        let g = Vector3(0, 0, -gravity) - acceleration
        let reading = Vector3(g.dot(now.x), g.dot(now.y), g.dot(now.z))
        // Body angular rate from the skew-symmetric Rᵀ·dR/dt: ωx = ẏ·z, ωy = ż·x, ωz = ẋ·y.
        let dx = (after.x - before.x) * (1 / (2 * h))
        let dy = (after.y - before.y) * (1 / (2 * h))
        let dz = (after.z - before.z) * (1 / (2 * h))
        let omega = Vector3(dy.dot(now.z), dz.dot(now.x), dx.dot(now.y))
        return (reading, omega)
    }

    // MARK: - Sampling

    /// Samples the script.
    ///
    /// - Parameters:
    ///   - rate: nominal sample rate, Hz.
    ///   - gyroscope: include angular rates.
    ///   - jitter: each timestamp moves by up to ±`jitter`/2 periods (0…0.9); order is kept.
    ///   - gaps: intervals with no samples at all (a suspended sensor, a dropped USB frame).
    ///   - seed: fixes noise and tremor phases.
    ///   - timeOffset: added to every timestamp (logs rarely start at 0).
    public func samples(rate: Double, gyroscope: Bool = false, jitter: Double = 0,
                        gaps: [ClosedRange<Double>] = [], seed: UInt64 = 1, timeOffset: Double = 0) -> [Sample] {
        var rng = SplitMix64(seed: seed)
        let phases = Phases(&rng)
        let period = 1 / rate
        let count = Int((duration * rate).rounded(.down))
        var samples: [Sample] = []
        samples.reserveCapacity(count + 1)
        for k in 0...count {
            var t = Double(k) * period
            if jitter > 0 { t += (rng.uniform() - 0.5) * min(jitter, 0.9) * period }
            t = max(0, min(t, duration))
            if gaps.contains(where: { $0.contains(t) }) { continue }
            let (reading, idealRate) = ideal(at: t, phases: phases)
            let noisy = reading + Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * accelerometerNoise
            var rate: Vector3? = nil
            if gyroscope {
                let omega = gyroscopeDelay == 0 ? idealRate : ideal(at: max(0, t - gyroscopeDelay), phases: phases).angularRate
                rate = omega + gyroscopeBias + Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * gyroscopeNoise
            }
            if let last = samples.last, t + timeOffset <= last.time { continue }
            samples.append(Sample(time: t + timeOffset, acceleration: noisy, angularRate: rate))
        }
        return samples
    }
}
