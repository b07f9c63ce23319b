import OrientationCore

extension PostureDetector {
    /// Every tunable of the posture detector, with documented defaults (docs/DETECTOR.md,
    /// "The posture detector", gives the reason for each).
    ///
    /// Angles are in degrees, times in seconds, accelerations in m/s², rates in degrees per
    /// second. ``validate()`` rejects impossible combinations with a ``ConfigurationError`` naming
    /// the field by its parameter name; ``PostureDetector/init(configuration:)`` calls it.
    public struct Configuration: Hashable, Sendable {
        // MARK: Geometry

        /// The display edge the hinge runs along (``HingeEdge``).
        public var hingeEdge: HingeEdge = .bottom
        /// While the hinge axis is within this angle of vertical, the hinge angle is not trusted
        /// (``PostureHold/hingeVertical``). ChromeOS's EC gives up when gravity's component along
        /// the hinge exceeds 8.7 m/s², about 27° from vertical.
        public var hingeVerticalMargin: Double = 30
        /// The path of the hinge is followed down to this angle from vertical (coarser than
        /// ``hingeVerticalMargin``: following needs continuity, not accuracy).
        public var trackVerticalMargin: Double = 10
        /// An angle within this of 0°/360° could be either: the lid shut or folded back.
        public var closedFoldedBand: Double = 20
        /// How long the path of the hinge is remembered without a usable angle. Within it, each
        /// angle continues from the last (the lid cannot jump); after it, an angle near 0°/360°
        /// continues the path only if it is within 90° of where the path was, else it is
        /// ``Posture/unknown`` until one tells.
        public var pathMemory: Double = 2.0
        /// The fastest a hinge turns (deg/s): a step of the path farther than this allows since
        /// the last angle followed (plus ``closedFoldedBand`` for noise) is not this hinge's angle
        /// and is not followed. A person folds a tent (300°) to a tablet in a quarter of a second
        /// (about 450°/s at the fastest); 720 is a whole fold in half a second.
        public var hingeSpeed: Double = 720

        // MARK: Postures

        /// Below this hinge angle: closed.
        public var closedAngle: Double = 20
        /// From ``closedAngle`` to this: laptop; from this to ``flatUpperAngle``: flat.
        public var flatLowerAngle: Double = 160
        /// From this to ``tabletAngle``: tent or stand.
        public var flatUpperAngle: Double = 200
        /// From this up: tablet.
        public var tabletAngle: Double = 330
        /// Hysteresis around each boundary above: a posture is kept until the angle is more than
        /// half of this past its boundary, and entered only once it is more than half past.
        public var hysteresis: Double = 10
        /// Folded between flat and tablet, the display's hinge edge must be at least this far
        /// below horizontal for stand (display standing on its hinge) or above for tent (hinge
        /// on top); in between, the folded posture already published is kept.
        public var tentStandTilt: Double = 10

        // MARK: Filtering, motion and settling

        /// Time constant of the low-pass filter on each sensor (exact for any sample spacing).
        public var filterTimeConstant: Double = 0.1
        /// A sensor's gap between samples longer than this (or its time going backwards)
        /// restarts its filter.
        public var gapReset: Double = 1.0
        /// The two sensors are compared only while the other's latest reading is at most this
        /// old (they sample independently).
        public var pairingWindow: Double = 0.5
        /// Standard gravity, the acceleration test's reference.
        public var gravity: Double = 9.80665
        /// A sensor whose filtered magnitude is off ``gravity`` by more than this is
        /// accelerating. ChromeOS uses 1 m/s² between the two sensors.
        public var accelerationTolerance: Double = 1.0
        /// A sensor whose direction turns faster than this (deg/s) is moving.
        public var turnRate: Double = 30
        /// Decisions wait this long after either sensor last moved.
        public var motionHoldoff: Double = 0.2
        /// A new posture must be the candidate this long, on trusted samples, before it is
        /// published.
        public var settleTime: Double = 0.3

        /// The documented defaults.
        public init() {}

        /// How many time constants apart two readings of one filter may be at most
        /// (``validate()``: `filter-time-constant` × this ≥ `gap-reset`).
        public static let filterSpan = 30.0

        /// Checks every field and every relation between fields.
        ///
        /// - Throws: ``ConfigurationError`` naming the first offending field by its parameter
        ///   name (the one ``parameters`` uses).
        public func validate() throws(ConfigurationError) {
            let positive = ConfigurationError.requirePositive, nonNegative = ConfigurationError.requireNonNegative
            func angle(_ value: Double, _ name: String, below limit: Double) throws(ConfigurationError) {
                try ConfigurationError.requireAngle(value, name, below: limit)
            }
            try angle(hingeVerticalMargin, "hinge-vertical-margin", below: 90)
            try angle(trackVerticalMargin, "track-vertical-margin", below: 90)
            guard trackVerticalMargin <= hingeVerticalMargin else {
                throw ConfigurationError(field: "track-vertical-margin",
                                         message: "(\(trackVerticalMargin)) must not exceed hinge-vertical-margin (\(hingeVerticalMargin)), or trusted angles would not be followed")
            }
            try angle(closedFoldedBand, "closed-folded-band", below: 90)
            try positive(pathMemory, "path-memory")
            try positive(hingeSpeed, "hinge-speed")
            try angle(hysteresis, "hysteresis", below: 90)
            // The boundaries in order, each zone wider than the hysteresis around its edges.
            let boundaries = [("closed-angle", closedAngle), ("flat-lower-angle", flatLowerAngle),
                              ("flat-upper-angle", flatUpperAngle), ("tablet-angle", tabletAngle)]
            for (name, value) in boundaries {
                guard value.isFinite, value > hysteresis / 2, value < 360 - hysteresis / 2 else {
                    throw ConfigurationError(field: name, message: "must lie within \(hysteresis / 2)…\(360 - hysteresis / 2) degrees (hysteresis/2 from either end), not \(value)")
                }
            }
            for (lower, upper) in zip(boundaries, boundaries.dropFirst()) where upper.1 - lower.1 <= hysteresis {
                throw ConfigurationError(field: upper.0,
                                         message: "(\(upper.1)) must exceed \(lower.0) (\(lower.1)) by more than hysteresis (\(hysteresis)), or a posture could never be entered")
            }
            try angle(tentStandTilt, "tent-stand-tilt", below: 90)
            try positive(filterTimeConstant, "filter-time-constant")
            try positive(gapReset, "gap-reset")
            // The filter's gain for readings `gap-reset` apart (the farthest apart a filter keeps
            // going) must stay below 1: at exp(−30) its complement still has three digits; beyond,
            // it rounds to 1, the motion test's chord to 0, and every reading counts as moving, so
            // no posture is ever decided (a governed reader reads every 0.4 s).
            guard filterTimeConstant * Self.filterSpan >= gapReset else {
                throw ConfigurationError(field: "filter-time-constant",
                                         message: "(\(filterTimeConstant)) is too short for readings up to gap-reset (\(gapReset)) apart: the filter's gain would round to 1, every reading would count as moving and no posture would ever be decided; it must be at least gap-reset/\(Int(Self.filterSpan)) (\(gapReset / Self.filterSpan))")
            }
            try positive(pairingWindow, "pairing-window")
            try positive(gravity, "gravity")
            try positive(accelerationTolerance, "acceleration-tolerance")
            guard accelerationTolerance < gravity else {
                throw ConfigurationError(field: "acceleration-tolerance",
                                         message: "(\(accelerationTolerance)) must be below gravity (\(gravity)), or free fall would count as still")
            }
            try positive(turnRate, "turn-rate")
            try nonNegative(motionHoldoff, "motion-holdoff")
            try nonNegative(settleTime, "settle-time")
        }
    }
}
