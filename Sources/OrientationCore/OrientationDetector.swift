/// Turns a stream of samples into device-orientation changes: the pure state machine of
/// docs/ARCHITECTURE.md §4, explained parameter by parameter in docs/DETECTOR.md.
///
/// Contract:
/// - **Deterministic.** Time comes only from sample timestamps, never a clock. The same samples
///   with the same configuration give the same events, on every machine.
/// - **Total.** Every sample is accepted. A sample with a non-finite or exactly zero acceleration
///   is ignored (counted in ``statistics``). A timestamp that goes backwards, or a gap longer than
///   ``Configuration/gapReset``, restarts the filters from that sample; the published orientation
///   is kept and a fresh decision must settle again.
/// - **One event per change.** ``process(_:)`` returns an event exactly when the published
///   orientation changes; it never publishes `unknown` (only ``reset()`` returns to it).
///
/// How it decides. Two low-pass filters estimate gravity: a slow one (steady) and a fast one
/// (prompt). The spread of the fast filter's direction over ``Configuration/motionWindow`` says
/// whether the device is *still*, *moving* gently or *swinging*; a gyroscope, when present,
/// refines that with the rate at which gravity's direction turns.
/// - Still: the candidate comes from the fast filter and is published after
///   ``Configuration/stillSettleTime`` — low latency once a turn ends.
/// - Moving: the candidate comes from the slow filter and must persist for
///   ``Configuration/settleTime`` with the acceleration and after-flat gates closed.
/// - Swinging (or, with a gyroscope, turning): nothing is published until it ends.
/// Candidates use angular hysteresis relative to the published orientation, per-orientation tilt
/// limits, and separate enter/exit tilts for face-up and face-down.
public struct OrientationDetector: Sendable {
    /// The configuration this detector was created with (validated).
    public let configuration: Configuration
    /// The published orientation: `unknown` until the first decision.
    public private(set) var orientation: DeviceOrientation = .unknown
    /// Counters of what the detector saw.
    public private(set) var statistics = Statistics()

    // Derived constants: every angle threshold as the sine or cosine the hot path compares with,
    // so no inverse trigonometry runs per sample.
    private let stillChord: Double
    private let steadyChord: Double
    private let swingChord: Double
    private let gyroHoldRate: Double
    private let gyroQuietRate: Double
    /// accel-quiet-rate in radians per second.
    private let accelQuietRate: Double
    private let sinFaceUpEnter, sinFaceUpExit, sinFaceDownEnter, sinFaceDownExit, sinFlat: Double
    /// −sin(screen-down-still-tilt): in-plane changes below this sine of tilt need stillness.
    private let sinScreenDown: Double
    /// Per quarter turn: sines of the lower and upper tilt limits.
    private let sinTiltLimits: [(lower: Double, upper: Double)]
    /// cos(45° + dead-band/2): staying in the published orientation needs at least this.
    private let cosKeep: Double
    /// The same beyond steep-tilt: cos(45° + steep-dead-band/2), and sin(steep-tilt).
    private let cosKeepSteep: Double
    private let sinSteep: Double
    /// cos(45° − diagonal-exclusion/2): acquiring from no reference needs at least this.
    private let cosAcquire: Double

    // Filter state.
    private var lastTime = -Double.infinity
    /// The fast filter's gain at the last sample (0 for a sample at the same time).
    private var fastGain = 0.0
    /// The sample spacing the cached gains below were computed for. Samples mostly come evenly
    /// spaced, so `expm1` (a third of the time per sample) runs only when the spacing changes
    /// by more than a millionth: the gains then differ by less than a millionth of themselves.
    private var gainSpacing = -Double.infinity
    private var slowGainCached = 0.0
    private var fastGainCached = 0.0
    /// The squared chord below which the fast direction is quiet without a gyroscope (see
    /// `accel-quiet-rate`), for that spacing.
    private var quietChordSquared = 0.0
    private var hasFilter = false
    private var slow = Vector3.zero
    private var fast = Vector3.zero
    private var fastRate = Vector3.zero
    private var motion: MotionTracker
    /// The slow filter's direction over ``Configuration/steadyWindow`` (it has no faster
    /// content worth tracking), judged only when a decision needs it.
    private var steadiness: DirectionHistory

    // The last time each condition held.
    private var accelerationGateTime = -Double.infinity
    private var swingTime = -Double.infinity
    private var flatTime = -Double.infinity
    private var gyroTime = -Double.infinity
    private var gyroTurningTime = -Double.infinity
    private var gyroTurningSince = -Double.infinity
    /// The first sample of the current quiet stretch of the gyroscope (`+∞` while turning).
    /// Measured from a sample, not from the last turning one: at 10 Hz one quiet reading says
    /// nothing about the 100 ms before it.
    private var gyroQuietSince = -Double.infinity
    /// The fast direction low-passed once more (τ = fast-filter-time-constant): its distance
    /// from the fast direction is about the direction's rate of turn times τ.
    private var lagDirection = Vector3.zero
    /// The first sample of the current quiet stretch by that rate (`+∞` while turning).
    private var accelQuietSince = Double.infinity

    // Decision state.
    private var pending: DeviceOrientation?
    private var pendingSince = -Double.infinity
    /// The first sample of the current stretch in which the pending candidate is being arrived
    /// at (`arrive-angle`; `+∞` otherwise).
    private var arrivingSince = Double.infinity

    // The last sample's view, for ``snapshot``.
    private var last = Observation()

    /// Creates a detector.
    ///
    /// - Throws: ``ConfigurationError`` when the configuration is invalid.
    public init(configuration: Configuration = Configuration()) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        stillChord = 2 * cMath_sin(radians(configuration.stillAngle) / 2)
        steadyChord = 2 * cMath_sin(radians(configuration.steadyAngle) / 2)
        swingChord = 2 * cMath_sin(radians(configuration.swingAngle) / 2)
        gyroHoldRate = radians(configuration.gyroHoldRate)
        gyroQuietRate = radians(configuration.gyroQuietRate)
        accelQuietRate = radians(configuration.accelQuietRate)
        let sinDegrees = { (d: Double) in cMath_sin(radians(d)) }
        sinFaceUpEnter = sinDegrees(configuration.faceUpEnterTilt)
        sinFaceUpExit = sinDegrees(configuration.faceUpExitTilt)
        sinFaceDownEnter = sinDegrees(configuration.faceDownEnterTilt)
        sinFaceDownExit = sinDegrees(configuration.faceDownExitTilt)
        sinFlat = sinDegrees(min(configuration.faceUpEnterTilt, configuration.faceDownEnterTilt))
        sinScreenDown = -sinDegrees(configuration.screenDownStillTilt)
        sinTiltLimits = (0..<4).map { turns in
            let range = configuration.tiltRange(quarterTurns: turns)
            return (sinDegrees(range.lower), sinDegrees(range.upper))
        }
        cosKeep = cMath_cos(radians(45 + configuration.deadBand / 2))
        cosKeepSteep = cMath_cos(radians(45 + configuration.steepDeadBand / 2))
        sinSteep = sinDegrees(configuration.steepTilt)
        cosAcquire = cMath_cos(radians(45 - configuration.diagonalExclusion / 2))
        motion = MotionTracker(window: configuration.motionWindow)
        steadiness = DirectionHistory(window: configuration.steadyWindow)
    }

    /// True when nothing is about to change: after the last sample no candidate differs from
    /// the published orientation and none waits to settle (``SampleRateGovernor`` slows the
    /// sensor only then). False before the first sample.
    public var isSettled: Bool {
        hasFilter && last.pending == nil && (last.candidate == nil || last.candidate == orientation)
    }

    /// Returns to the initial state: `unknown`, filters empty, statistics kept. Call it when the
    /// sample stream restarts for a reason the timestamps do not show (a sensor reopened).
    public mutating func reset() {
        orientation = .unknown
        restartFilters()
        gyroTime = -.infinity
    }

    /// Feeds one sample; returns the event when the published orientation changes.
    public mutating func process(_ sample: Sample) -> OrientationEvent? {
        let a = sample.acceleration
        guard statistics.admit(time: sample.time, acceleration: a) else { return nil }
        let t = sample.time
        let c = configuration

        // 1. Filters: exact exponential smoothing for any Δt; restart after a gap or time reversal.
        let dt = t - lastTime
        if !hasFilter || dt < 0 || dt > c.gapReset {
            if hasFilter {
                if dt < 0 { statistics.timeReversals += 1 } else { statistics.gapResets += 1 }
            }
            restartFilters()
            slow = a
            fast = a
            lagDirection = a * (1 / a.length)
            fastGain = 0
            hasFilter = true
        } else if dt > 0 {
            if abs(dt - gainSpacing) > gainSpacing * 1e-6 { cacheGains(spacing: dt) }
            slow += (a - slow) * slowGainCached
            fastGain = fastGainCached
            fast += (a - fast) * fastGain
        } else {
            fastGain = 0
        }
        lastTime = t

        // 2. Motion: acceleration gate, spread of the fast direction, gyroscope.
        let fastMagnitude = fast.length
        if abs(fastMagnitude - c.gravity) > c.accelerationTolerance { accelerationGateTime = t }
        let direction = fast * (1 / fastMagnitude)
        let (spread, covered) = motion.add(direction, at: t)
        let slowMagnitude = slow.length
        steadiness.offer(slow, magnitude: slowMagnitude, at: t)
        // Swinging is a speed: the swing angle per motion window. Judge it over the time the
        // window's samples really cover, which at 10 Hz is half the window.
        let swinging = spread * c.motionWindow >= swingChord * max(covered, 1e-3)
        if swinging { swingTime = t }
        if let w = sample.angularRate, w.isFinite {
            if t - gyroTime > c.gyroTimeout || fastGain == 0 {  // stale, a repeated time, or a restart
                fastRate = w
            } else {
                fastRate += (w - fastRate) * fastGain
            }
            gyroTime = t
            // Only turning that moves gravity's direction matters: |ω × ĝ|.
            let tiltingRate = fastRate.cross(direction).length
            if tiltingRate >= gyroHoldRate {
                if t - gyroTurningTime >= c.stillSettleTime { gyroTurningSince = t }  // a new episode
                gyroTurningTime = t
            }
            if tiltingRate >= gyroQuietRate {
                gyroQuietSince = .infinity
            } else if gyroQuietSince == .infinity {
                gyroQuietSince = t
            }
        }
        let gyroPresent = t - gyroTime <= c.gyroTimeout
        let turning = gyroPresent && t - gyroTurningTime < c.stillSettleTime && t - gyroTurningSince < c.gyroHoldLimit
        let still: Bool
        if gyroPresent {
            // A quiet gyroscope is direct evidence of stillness; the accelerometer's window
            // would only add its own lag. Linear jolts are still caught by the acceleration gate
            // and by the candidate having to persist.
            still = t - gyroQuietSince >= c.stillSettleTime
            accelQuietSince = .infinity
        } else {
            // Without one (issue 20), the accelerometer's own rate of turn does the same: the
            // fast direction's distance from its own low-pass. It falls below accel-quiet-rate
            // within about 0.1 s of a turn's end, where the spread needs the whole motion window
            // to clear (0.2 s and more). A pause within one continuous movement does not look
            // quiet: the rate is smoothed over τ either side of it. The threshold is scaled
            // for the sample spacing (`cacheGains`).
            // (Kept only while it is used: when a gyroscope goes away, the low-pass starts from
            // where it was and the direction is not quiet until it has caught up.)
            lagDirection += (direction - lagDirection) * fastGain
            if fastGain > 0 {
                if (direction - lagDirection).lengthSquared >= quietChordSquared {
                    accelQuietSince = .infinity
                } else if accelQuietSince == .infinity {
                    accelQuietSince = t
                }
            }
            // A fresh start (or restart) still settles: quiet counts once the filters have run
            // for settle-time.
            still = (spread < stillChord && motion.hasFullWindow(at: t))
                || (t - accelQuietSince >= c.stillSettleTime && motion.hasSeen(c.settleTime, at: t))
        }

        // 3. The candidate: fast filter while still, slow filter otherwise.
        let v = still ? fast : slow
        let magnitude = still ? fastMagnitude : slowMagnitude
        let sinTilt = magnitude > 0 ? -v.z / magnitude : 0
        if abs(sinTilt) >= sinFlat { flatTime = t }
        let candidate = self.candidate(v, magnitude: magnitude, sinTilt: sinTilt)
        last = Observation(vector: v, magnitude: magnitude, spread: spread,
                           motion: turning || (swinging && !still) ? .swinging : (still ? .still : .moving),
                           usingGyroscope: gyroPresent, candidate: candidate, pending: nil,
                           fastMagnitude: fastMagnitude, accelerationGate: t - accelerationGateTime <= 0)

        // 4. Settle and gates.
        guard let candidate, candidate != orientation else {
            pending = nil
            return nil
        }
        if candidate != pending {
            pending = candidate
            pendingSince = t
            arrivingSince = .infinity
        }
        // Arriving (arrive-angle) counts over a stretch: a swing that pitches toward upright for
        // a moment on its way elsewhere is not arriving for settle-time.
        if still || !isArriving(at: candidate) {
            arrivingSince = .infinity
        } else if arrivingSince == .infinity {
            arrivingSince = t
        }
        last.pending = pending
        let ready: Bool
        if turning && t - pendingSince < c.gyroHoldLimit {
            ready = false
        } else if still {
            ready = t - pendingSince >= c.stillSettleTime && t - accelerationGateTime >= c.stillSettleTime
        } else {
            ready = t - swingTime >= c.swingHoldoff
                && t - pendingSince >= c.settleTime
                && (steadiness.isSteady(at: t, chord: steadyChord) || t - arrivingSince >= c.settleTime)
                && t - accelerationGateTime >= c.accelerationHoldoff
                && (candidate.isFlat || (sinTilt >= sinScreenDown && t - flatTime >= c.afterFlatHoldoff))
        }
        guard ready, !isReceding(from: candidate) else { return nil }
        let event = OrientationEvent(time: t, orientation: candidate, previous: orientation)
        orientation = candidate
        pending = nil
        last.pending = nil
        statistics.events += 1
        return event
    }

    // MARK: - Geometry

    /// Tilt in degrees: +90 flat face-up, 0 upright, −90 flat face-down.
    static func tilt(_ v: Vector3, magnitude: Double) -> Double {
        guard magnitude > 0 else { return .nan }
        return degrees(cMath_asin(max(-1, min(1, -v.z / magnitude))))
    }

    /// In-plane angle in degrees, [0, 360): how far the device is turned counter-clockwise from
    /// portrait (0 portrait, 90 landscape-left, 180 upside down, 270 landscape-right).
    static func inPlaneAngle(_ v: Vector3) -> Double {
        let angle = degrees(cMath_atan2(-v.x, -v.y))
        return angle < 0 ? angle + 360 : angle
    }

    /// The candidate orientation for gravity estimate `v`.
    ///
    /// Geometry without inverse trigonometry: the cosine of the angle between the in-plane part
    /// of gravity and orientation k's ideal direction is `dot_k / |g₂|`, with dot products
    /// −y (portrait), −x (landscape-left), y (upside down) and x (landscape-right); tilt limits
    /// compare `sin(tilt) = −z/|v|` with the limits' sines (sine is monotonic on ±90°).
    @inline(__always)
    private func candidate(_ v: Vector3, magnitude: Double, sinTilt: Double) -> DeviceOrientation? {
        guard magnitude >= configuration.minimumMagnitude else { return nil }
        // Face states first, each with its own enter and exit tilt.
        if sinTilt >= sinFaceUpEnter || (orientation == .faceUp && sinTilt >= sinFaceUpExit) { return .faceUp }
        if -sinTilt >= sinFaceDownEnter || (orientation == .faceDown && -sinTilt >= sinFaceDownExit) { return .faceDown }

        let inPlane = (v.x * v.x + v.y * v.y).squareRoot()
        guard inPlane > 0 else { return nil }
        let turns: Int
        let keep = abs(sinTilt) > sinSteep ? cosKeepSteep : cosKeep
        if let current = orientation.quarterTurns, Self.dot(v, quarterTurns: current) >= keep * inPlane {
            turns = current
        } else {
            let nearest = abs(v.x) > abs(v.y) ? (v.x > 0 ? 3 : 1) : (v.y > 0 ? 2 : 0)
            // Too far from the new edge: near a diagonal (no coin toss), or a swing far past the
            // opposite edge (a phone handed over or put away). Keep what is published.
            if Self.dot(v, quarterTurns: nearest) < cosAcquire * inPlane { return nil }
            turns = nearest
        }
        let limits = sinTiltLimits[turns]
        guard sinTilt >= limits.lower, sinTilt <= limits.upper else { return nil }
        return DeviceOrientation.inPlane[turns]
    }

    /// True when the device is on its way back out of `candidate` (`recede-angle`, issue 41):
    /// the fast estimate is more than `recede-angle` closer than the slow one to the published
    /// orientation's axis or, for face-up and face-down (caps: tilting out of one leaves it,
    /// whichever way), more than that farther from the candidate's axis. An in-plane
    /// orientation is a wedge a hand wobbles across, so only heading back counts there. Never
    /// for the first decision. Runs only when a change is otherwise ready, so its inverse
    /// trigonometry is off the hot path.
    private func isReceding(from candidate: DeviceOrientation) -> Bool {
        let margin = configuration.recedeAngle
        guard margin < 180, orientation != .unknown else { return false }
        if candidate.isFlat, Self.offAxis(fast, candidate) > Self.offAxis(slow, candidate) + margin { return true }
        return Self.offAxis(fast, orientation) + margin < Self.offAxis(slow, orientation)
    }

    /// True when the device is pitching into in-plane `candidate` (`arrive-angle`, issue 41): the
    /// fast estimate's tilt is at least `arrive-angle` closer to upright than the slow one's,
    /// and the fast estimate lies within `45 − diagonal-exclusion/2` of the candidate's edge and
    /// no more than `arrive-angle` farther from it than the slow one (not rolling away). A pitch
    /// toward upright keeps which edge is up, so where it is heading is where it ends; a roll
    /// keeps its tilt and is not arriving. Runs only while a change is pending on the moving
    /// path, so its inverse trigonometry is off the hot path.
    private func isArriving(at candidate: DeviceOrientation) -> Bool {
        let margin = configuration.arriveAngle
        guard margin < 180, candidate.quarterTurns != nil else { return false }
        let fastTilt = abs(Self.tilt(fast, magnitude: fast.length)), slowTilt = abs(Self.tilt(slow, magnitude: slow.length))
        guard fastTilt + margin <= slowTilt else { return false }
        let limit = 45 - configuration.diagonalExclusion / 2
        let fastOff = Self.offAxis(fast, candidate), slowOff = Self.offAxis(slow, candidate)
        return fastOff <= limit && fastOff <= slowOff + margin
    }

    /// Degrees between `v` and `orientation`'s axis: for face-up and face-down the angle from the
    /// screen's normal, in-plane the in-plane angle from that orientation's edge (tilt aside).
    static func offAxis(_ v: Vector3, _ orientation: DeviceOrientation) -> Double {
        switch orientation {
        case .faceUp: return degrees(cMath_atan2((v.x * v.x + v.y * v.y).squareRoot(), -v.z))
        case .faceDown: return degrees(cMath_atan2((v.x * v.x + v.y * v.y).squareRoot(), v.z))
        default:
            guard let turns = orientation.quarterTurns else { return 0 }
            let across = turns % 2 == 0 ? v.x : v.y
            return degrees(cMath_atan2(abs(across), dot(v, quarterTurns: turns)))
        }
    }

    /// The in-plane component of `v` along orientation `quarterTurns`' gravity direction.
    @inline(__always)
    private static func dot(_ v: Vector3, quarterTurns: Int) -> Double {
        switch quarterTurns {
        case 0: -v.y
        case 1: -v.x
        case 2: v.y
        default: v.x
        }
    }

    /// Computes the filters' gains for samples `spacing` seconds apart (exact exponential
    /// smoothing: `α = 1 − e^(−Δt/τ)`), and the accelerometer's quiet chord: for a steady turn at
    /// rate ω the fast direction's own low-pass lags ω·Δt·(1 − g)/g behind it (ω·τ at high
    /// rates, much less at 10 Hz).
    private mutating func cacheGains(spacing: Double) {
        let c = configuration
        gainSpacing = spacing
        slowGainCached = -cMath_expm1(-spacing / c.filterTimeConstant)
        fastGainCached = -cMath_expm1(-spacing / c.fastFilterTimeConstant)
        let chord = accelQuietRate * spacing * (1 - fastGainCached) / fastGainCached
        quietChordSquared = chord * chord
    }

    private mutating func restartFilters() {
        hasFilter = false
        lastTime = -.infinity
        accelerationGateTime = -.infinity
        swingTime = -.infinity
        flatTime = -.infinity
        gyroTurningTime = -.infinity
        gyroTurningSince = -.infinity
        gyroQuietSince = -.infinity
        accelQuietSince = .infinity
        motion.reset()
        steadiness.reset()
        pending = nil
        pendingSince = -.infinity
        arrivingSince = .infinity
    }
}

extension OrientationDetector {
    /// What the detector saw, for diagnostics.
    public typealias Statistics = SampleCounts

    /// How the device was moving at the last sample.
    public enum Motion: String, Hashable, Sendable {
        case still, moving, swinging
    }

    /// The detector's view after the last accepted sample, for `orientationctl replay --trace`.
    public struct Snapshot: Hashable, Sendable {
        /// Magnitude of the gravity estimate used for the decision, m/s².
        public var magnitude = Double.nan
        /// Tilt in degrees (+90 face-up).
        public var tilt = Double.nan
        /// In-plane angle in degrees (0 portrait, 90 landscape-left).
        public var angle = Double.nan
        /// Spread of the fast gravity direction over the motion window, degrees (an upper bound).
        public var spread = Double.nan
        public var motion = Motion.moving
        /// True while a gyroscope is present.
        public var usingGyroscope = false
        /// The orientation this sample points to (before settling), if any.
        public var candidate: DeviceOrientation?
        /// The candidate waiting to settle, if any.
        public var pending: DeviceOrientation?
        /// Magnitude of the fast filter, m/s²: what the acceleration gate compares with gravity.
        public var fastMagnitude = Double.nan
        /// True while the acceleration gate is open (the fast magnitude is further than
        /// `acceleration-tolerance` from gravity at this sample).
        public var accelerationGate = false
        /// True when the slow estimate has stayed within `steady-angle` over `steady-window`.
        public var steady = false
    }

    /// What the last sample looked like, kept raw; degrees are computed only when asked.
    struct Observation: Sendable {
        var vector = Vector3(.nan, .nan, .nan)
        var magnitude = Double.nan
        var spread = Double.nan
        var motion = Motion.moving
        var usingGyroscope = false
        var candidate: DeviceOrientation?
        var pending: DeviceOrientation?
        var fastMagnitude = Double.nan
        var accelerationGate = false
    }

    /// The state after the last accepted sample.
    public var snapshot: Snapshot {
        Snapshot(magnitude: last.magnitude, tilt: Self.tilt(last.vector, magnitude: last.magnitude),
                 angle: Self.inPlaneAngle(last.vector),
                 spread: degrees(2 * cMath_asin(min(1, last.spread / 2))), motion: last.motion,
                 usingGyroscope: last.usingGyroscope, candidate: last.candidate, pending: last.pending,
                 fastMagnitude: last.fastMagnitude, accelerationGate: last.accelerationGate,
                 steady: steadiness.isSteady(at: lastTime, chord: steadyChord))
    }
}
