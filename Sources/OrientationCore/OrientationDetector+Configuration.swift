extension OrientationDetector {
    /// Every tunable of the detector, with documented defaults (docs/DETECTOR.md explains each).
    ///
    /// Angles are in degrees, times in seconds, accelerations in m/s², angular rates in degrees
    /// per second. ``validate()`` rejects impossible combinations with a ``ConfigurationError``
    /// naming the field; ``OrientationDetector/init(configuration:)`` calls it.
    public struct Configuration: Hashable, Sendable {
        // MARK: Filtering

        /// Time constant of the low-pass filter that estimates gravity when no gyroscope is
        /// present. Independent of the sample rate; irregular timestamps are handled exactly
        /// (`α = 1 − e^(−Δt/τ)`). Larger is steadier and slower.
        public var filterTimeConstant: Double = 0.15
        /// Time constant of the fast filter used by the gates and, with a gyroscope, for the
        /// decision itself once the gyroscope says the device is still. Must be below
        /// ``filterTimeConstant``.
        public var fastFilterTimeConstant: Double = 0.04
        /// A gap between samples longer than this (or time going backwards) restarts the filters
        /// from the next sample and drops any pending candidate. The published orientation stays.
        public var gapReset: Double = 1.0

        // MARK: Geometry

        /// Angular hysteresis between adjacent in-plane orientations (a dead band centred on each
        /// diagonal). Leaving the published orientation needs the in-plane angle to be more than
        /// `45 + deadBand/2` degrees from it, so with 45 a device must turn 67.5° to switch and
        /// come back within 22.5° to switch back.
        public var deadBand: Double = 45
        /// A new in-plane orientation is entered only within `45 − diagonalExclusion/2` degrees
        /// of its edge: a device held at 45° is not assigned an orientation by a coin toss (at
        /// start, or after face-up/face-down), and a device swung more than that off the opposite
        /// edge (a handed-over phone, screen half down) does not flip to it.
        public var diagonalExclusion: Double = 30
        /// Beyond this tilt either way (degrees from upright) the in-plane direction is weak: a
        /// phone read while walking, 60–70° back, wobbles 60–70° toward an edge it is not turned
        /// to (issue 41). There, leaving the published in-plane orientation needs
        /// `45 + steepDeadBand/2` degrees instead of `45 + deadBand/2`.
        public var steepTilt: Double = 55
        /// The dead band beyond ``steepTilt``: with 70 leaving needs more than 80°, a turn nearly
        /// complete. Equal to ``deadBand`` it changes nothing.
        public var steepDeadBand: Double = 70
        /// Tilts at which each in-plane orientation may be entered or kept. Outside its range, no
        /// in-plane candidate exists and the published orientation is kept.
        public var portraitTilt = TiltRange(-50, 72)
        public var portraitUpsideDownTilt = TiltRange(-40, 65)
        public var landscapeLeftTilt = TiltRange(-50, 72)
        public var landscapeRightTilt = TiltRange(-50, 72)
        /// Screen-down beyond this tilt (degrees below vertical), a change to another in-plane
        /// orientation is published only while the device is still: swung screen-down, a phone
        /// is being put away or handed over, not read; held steady overhead (in bed), it turns.
        public var screenDownStillTilt: Double = 25
        /// Face-up is entered at this tilt or more…
        public var faceUpEnterTilt: Double = 78
        /// …and kept until the tilt drops below this.
        public var faceUpExitTilt: Double = 62
        /// Face-down is entered at this tilt magnitude (screen down) or more…
        public var faceDownEnterTilt: Double = 75
        /// …and kept until the tilt magnitude drops below this.
        public var faceDownExitTilt: Double = 62

        // MARK: Stillness, settling and gates

        /// The motion measure looks back this far: the angular spread of the fast-filtered
        /// gravity direction over this window says whether the device is still, moving gently,
        /// or swinging.
        public var motionWindow: Double = 0.2
        /// Spread below this (degrees) means *still*: the decision is taken on the fast filter and
        /// confirmed after ``stillSettleTime``. This is what makes the detector quick once a turn
        /// ends, without a gyroscope.
        public var stillAngle: Double = 5
        /// How long a candidate must persist while the device is still (and, with a gyroscope,
        /// how long the rate must have been quiet).
        public var stillSettleTime: Double = 0.05
        /// Spread at or above this (degrees) means *swinging* (turning, being put down or picked
        /// up): changes are held until it has been below this for ``swingHoldoff``.
        public var swingAngle: Double = 25
        public var swingHoldoff: Double = 0.1
        /// While moving gently (neither still nor swinging), a candidate from the slow filter
        /// must persist this long before it is published.
        public var settleTime: Double = 0.1
        /// A change to another orientation waits while the device is on its way back out of it
        /// (issue 41): while the fast estimate is more than this many degrees closer than the
        /// slow one to the published orientation's axis (in-plane: the in-plane angle; face-up
        /// and face-down: the angle from the screen's normal), or, for face-up and face-down,
        /// more than this farther from the candidate's own axis. The slow estimate is where the
        /// device pointed about a filter time ago, so the two differ by more than the
        /// direction's noise (``stillAngle``, 5°) only when it moves: a short tilt past the
        /// boundary (pitched toward the face, swung past an edge, flipped over the top) is
        /// already heading back or onward where its motion slows enough to settle; a turn
        /// coming to rest does not head back. Not applied to the first decision (from
        /// `unknown`). 180 turns it off.
        public var recedeAngle: Double = 5
        /// While moving, an in-plane change need not wait for ``steadyAngle`` over
        /// ``steadyWindow`` when the device is *arriving* (issue 41, item 2): for the whole
        /// ``settleTime`` the fast estimate's tilt has been at least this many degrees closer to
        /// upright than the slow one's, and the fast estimate is within
        /// `45 − diagonalExclusion/2` of the candidate's edge and no more than this farther from
        /// it than the slow one. A device pitching toward upright keeps which edge is up, so the
        /// orientation it is heading into is the one it ends in (lifted from a table into
        /// landscape, a phone raised from flat to read); a roll across orientations keeps its
        /// tilt and still waits for steadiness. Face-up and face-down are passed through by any
        /// pitch over the top and never use it. 180 turns it off.
        public var arriveAngle: Double = 5
        /// While moving, a change also waits until the slow filter's direction has stayed within
        /// ``steadyAngle`` over the last ``steadyWindow``: a device still turning through an
        /// orientation on its way to another (lifted from a table straight into landscape,
        /// rolled across) is not published in passing, while tremor and walking, which only
        /// wobble the direction, do not hold anything.
        public var steadyAngle: Double = 15
        public var steadyWindow: Double = 0.25
        /// Standard gravity, used by the acceleration gate.
        public var gravity: Double = 9.80665
        /// The acceleration gate opens when the fast-filtered magnitude differs from ``gravity``
        /// by more than this: the device is being moved, so the vector is not gravity.
        public var accelerationTolerance: Double = 3.5
        /// While moving, changes wait until the acceleration gate has been closed this long
        /// (while still, ``stillSettleTime``).
        public var accelerationHoldoff: Double = 0.1
        /// Below this magnitude (free fall, a zeroed sensor) there is no candidate at all.
        public var minimumMagnitude: Double = 2.0
        /// While moving, in-plane changes are held this long after the device last lay flat
        /// (tilt beyond an enter tilt): the first moments of a pick-up point anywhere. (Not while
        /// still: a quick turn at a steep tilt brushes past flat, and once it rests its direction
        /// is meaningful.)
        public var afterFlatHoldoff: Double = 0.3

        /// Without a gyroscope, the device also counts as still once the rate at which the fast
        /// filter's direction turns (estimated from the accelerometer alone) has stayed below
        /// this (deg/s) for ``stillSettleTime``: it settles within about 0.1 s of a turn's end,
        /// where the spread over a whole ``motionWindow`` takes 0.2 s or more. 0 turns it off
        /// (the detector of rounds 1–3).
        public var accelQuietRate: Double = 40

        // MARK: Gyroscope

        /// With a gyroscope, changes are held while the rate at which gravity's direction turns
        /// (|ω × ĝ|, so spinning about the vertical does not count) is at least this (deg/s)…
        public var gyroHoldRate: Double = 60
        /// …and the device counts as still once that rate has stayed below this (deg/s) for
        /// ``stillSettleTime``.
        public var gyroQuietRate: Double = 20
        /// The longest gyroscope turning may hold one candidate (or one turning episode hold
        /// changes). A gyroscope that reports sustained turning while the accelerometer's
        /// direction stays steady (circular motion: a turntable, a car in a curve, a swung arm; a
        /// phone turned about a tilted axis; a faulty gyroscope) is not moving apparent gravity;
        /// after this long the accelerometer decides as it would alone, so a gyroscope never
        /// loses a state the accelerometer would report.
        public var gyroHoldLimit: Double = 0.4
        /// The gyroscope counts as present while its last reading is at most this old; otherwise
        /// the detector works from the accelerometer alone.
        public var gyroTimeout: Double = 0.25

        /// The documented defaults.
        public init() {}

        /// The tilt range of an in-plane orientation (by quarter turns, 0…3).
        @inlinable
        public func tiltRange(quarterTurns: Int) -> TiltRange {
            switch quarterTurns & 3 {
            case 0: portraitTilt
            case 1: landscapeLeftTilt
            case 2: portraitUpsideDownTilt
            default: landscapeRightTilt
            }
        }

        /// Checks every field and every relation between fields.
        ///
        /// - Throws: ``ConfigurationError`` naming the first offending field by its parameter
        ///   name (the one ``parameters`` and the command line use): the first of ``problems()``.
        public func validate() throws(ConfigurationError) {
            if let first = problems().first { throw first }
        }

        /// Every field and every relation between fields that is wrong, in documentation
        /// order: what ``validate()`` refuses, all at once (issue 27: `--check-config` showed a
        /// reversed range and face-up-enter-tilt below face-up-exit-tilt only on later runs). A
        /// relation's error names both fields (``ConfigurationError/field`` and
        /// ``ConfigurationError/related``).
        public func problems() -> [ConfigurationError] {
            var found: [ConfigurationError] = []
            func check(_ body: () throws(ConfigurationError) -> Void) {
                do { try body() } catch { found.append(error) }
            }
            let positive = ConfigurationError.requirePositive, nonNegative = ConfigurationError.requireNonNegative
            func angle(_ value: Double, _ name: String, below limit: Double) throws(ConfigurationError) {
                try ConfigurationError.requireAngle(value, name, below: limit)
            }
            check { () throws(ConfigurationError) in try positive(filterTimeConstant, "filter-time-constant") }
            check { () throws(ConfigurationError) in try positive(fastFilterTimeConstant, "fast-filter-time-constant") }
            check { () throws(ConfigurationError) in
                guard fastFilterTimeConstant < filterTimeConstant else {
                    throw ConfigurationError(field: "fast-filter-time-constant",
                                             message: "(\(fastFilterTimeConstant)) must be below filter-time-constant (\(filterTimeConstant))",
                                             related: ["filter-time-constant"])
                }
            }
            check { () throws(ConfigurationError) in try positive(gapReset, "gap-reset") }
            check { () throws(ConfigurationError) in try angle(deadBand, "dead-band", below: 90) }
            check { () throws(ConfigurationError) in try angle(diagonalExclusion, "diagonal-exclusion", below: 90) }
            check { () throws(ConfigurationError) in try angle(steepTilt, "steep-tilt", below: 90) }
            check { () throws(ConfigurationError) in try angle(steepDeadBand, "steep-dead-band", below: 90) }
            for (range, name) in [(portraitTilt, "portrait-tilt"), (portraitUpsideDownTilt, "portrait-upside-down-tilt"),
                                  (landscapeLeftTilt, "landscape-left-tilt"), (landscapeRightTilt, "landscape-right-tilt")] {
                check { () throws(ConfigurationError) in
                    guard range.lower.isFinite, range.upper.isFinite, range.lower >= -90, range.upper <= 90,
                          range.lower < range.upper else {
                        throw ConfigurationError(field: name, message: "must be lower..upper with -90 <= lower < upper <= 90, not \(range)")
                    }
                }
            }
            check { () throws(ConfigurationError) in try angle(screenDownStillTilt, "screen-down-still-tilt", below: 90) }
            for (enter, exit, face) in [(faceUpEnterTilt, faceUpExitTilt, "face-up"), (faceDownEnterTilt, faceDownExitTilt, "face-down")] {
                let enterValid = enter.isFinite && enter > 0 && enter <= 90
                check { () throws(ConfigurationError) in
                    guard enterValid else {
                        throw ConfigurationError(field: "\(face)-enter-tilt", message: "must be above 0 and at most 90 degrees, not \(enter)")
                    }
                }
                check { () throws(ConfigurationError) in
                    guard exit.isFinite, exit > 0, !enterValid || exit < enter else {
                        throw ConfigurationError(field: "\(face)-exit-tilt",
                                                 message: "(\(exit)) must be above 0 and below \(face)-enter-tilt (\(enter)), or \(face) could never be left",
                                                 related: ["\(face)-enter-tilt"])
                    }
                }
            }
            check { () throws(ConfigurationError) in try positive(motionWindow, "motion-window") }
            check { () throws(ConfigurationError) in try angle(stillAngle, "still-angle", below: 90) }
            check { () throws(ConfigurationError) in try nonNegative(stillSettleTime, "still-settle-time") }
            check { () throws(ConfigurationError) in try angle(swingAngle, "swing-angle", below: 180) }
            check { () throws(ConfigurationError) in
                guard stillAngle < swingAngle else {
                    throw ConfigurationError(field: "still-angle", message: "(\(stillAngle)) must be below swing-angle (\(swingAngle))",
                                             related: ["swing-angle"])
                }
            }
            check { () throws(ConfigurationError) in try nonNegative(swingHoldoff, "swing-holdoff") }
            check { () throws(ConfigurationError) in try nonNegative(settleTime, "settle-time") }
            check { () throws(ConfigurationError) in
                guard recedeAngle.isFinite, recedeAngle >= 0, recedeAngle <= 180 else {
                    throw ConfigurationError(field: "recede-angle", message: "must be from 0 to 180 degrees (180: off), not \(recedeAngle)")
                }
            }
            check { () throws(ConfigurationError) in
                guard arriveAngle.isFinite, arriveAngle >= 0, arriveAngle <= 180 else {
                    throw ConfigurationError(field: "arrive-angle", message: "must be from 0 to 180 degrees (180: off), not \(arriveAngle)")
                }
            }
            check { () throws(ConfigurationError) in try angle(steadyAngle, "steady-angle", below: 180) }
            check { () throws(ConfigurationError) in try positive(steadyWindow, "steady-window") }
            check { () throws(ConfigurationError) in try positive(gravity, "gravity") }
            check { () throws(ConfigurationError) in try positive(accelerationTolerance, "acceleration-tolerance") }
            check { () throws(ConfigurationError) in try nonNegative(accelerationHoldoff, "acceleration-holdoff") }
            check { () throws(ConfigurationError) in try nonNegative(minimumMagnitude, "minimum-magnitude") }
            check { () throws(ConfigurationError) in
                guard minimumMagnitude < gravity else {
                    throw ConfigurationError(field: "minimum-magnitude",
                                             message: "(\(minimumMagnitude)) must be below gravity (\(gravity)), or no sample would ever count",
                                             related: ["gravity"])
                }
            }
            check { () throws(ConfigurationError) in try nonNegative(afterFlatHoldoff, "after-flat-holdoff") }
            check { () throws(ConfigurationError) in try nonNegative(accelQuietRate, "accel-quiet-rate") }
            check { () throws(ConfigurationError) in try positive(gyroHoldRate, "gyro-hold-rate") }
            check { () throws(ConfigurationError) in try positive(gyroQuietRate, "gyro-quiet-rate") }
            check { () throws(ConfigurationError) in
                guard gyroQuietRate <= gyroHoldRate else {
                    throw ConfigurationError(field: "gyro-quiet-rate",
                                             message: "(\(gyroQuietRate)) must not exceed gyro-hold-rate (\(gyroHoldRate))",
                                             related: ["gyro-hold-rate"])
                }
            }
            check { () throws(ConfigurationError) in try positive(gyroHoldLimit, "gyro-hold-limit") }
            check { () throws(ConfigurationError) in try positive(gyroTimeout, "gyro-timeout") }
            return found
        }
    }
}
