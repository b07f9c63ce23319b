/// How often the sensor needs reading now (issue 28): slowly while the device lies still and the
/// published orientation is settled, at the sensor's full rate from the first sample that shows
/// motion until the detector has settled again.
///
/// On a tablet the desktop holds its claim all session, so the daemon's cost while claimed is its
/// battery cost. A device that lies still needs no 10 readings a second to stay where it is; one
/// every ``Configuration/stillInterval`` seconds notices the start of any turn (a turn takes
/// longer than that), and from that sample on the reader runs at full rate again, so the turn is
/// published as fast as before.
///
/// Contract:
/// - **Deterministic.** Time comes only from sample timestamps. A reader that obeys
///   ``interval`` and a replay that drops what ``admits(_:)`` refuses see the same samples,
///   so `orientationctl replay`/`evaluate` tell what the daemon would have published.
/// - **Still** means: every admitted sample since the still stretch began is within
///   ``Configuration/motionAngle`` degrees of that stretch's first sample, its magnitude within
///   ``Configuration/motionAcceleration`` of that sample's, and (with a gyroscope) turning slower
///   than ``Configuration/motionRate``. A slow drift therefore counts as motion once it adds up.
/// - The pace slows only after ``Configuration/stillAfter`` seconds still *and* a detector that
///   says nothing is about to change (``OrientationDetector/isSettled``); it returns to full on
///   the first sample that is not still, whatever the detector says.
/// - A sample that is not finite, or whose time goes backwards, returns to full rate and
///   restarts the still stretch (the reader or the log restarted).
/// - ``Configuration/stillInterval`` 0 turns the governor off: every sample is admitted and the
///   pace is always full.
public struct SampleRateGovernor: Sendable {
    /// The governor's settings (`[sensor]` in orientationd.conf).
    public struct Configuration: Hashable, Sendable {
        /// Seconds between readings while still and settled; 0: always read at full rate.
        /// Kept below the detector's `gap-reset` (``limited(gapReset:)``), so slow samples never
        /// restart its filters.
        public var stillInterval: Double = 0.5
        /// Seconds the device must lie still (and the detector be settled) before the pace slows.
        public var stillAfter: Double = 1.0
        /// Degrees from the still stretch's first sample that count as motion.
        public var motionAngle: Double = 3
        /// m/s² of change in magnitude from that sample that count as motion (picked up, bumped).
        public var motionAcceleration: Double = 0.6
        /// Degrees per second of gyroscope rate that count as motion.
        public var motionRate: Double = 10

        public init(stillInterval: Double = 0.5, stillAfter: Double = 1.0, motionAngle: Double = 3,
                    motionAcceleration: Double = 0.6, motionRate: Double = 10) {
            self.stillInterval = stillInterval
            self.stillAfter = stillAfter
            self.motionAngle = motionAngle
            self.motionAcceleration = motionAcceleration
            self.motionRate = motionRate
        }

        /// The governor switched off: every sample, always at full rate.
        public static let off = Configuration(stillInterval: 0)

        /// Whether the governor ever slows the pace.
        public var isEnabled: Bool { stillInterval > 0 }

        /// The first problem, as the configuration key orientationd.conf uses, or `nil`.
        public func problem() -> (key: String, message: String)? {
            guard stillInterval.isFinite, stillInterval >= 0, stillInterval <= 5 else {
                return ("still-interval", "must be 0 (off) or a number of seconds up to 5")
            }
            guard stillAfter.isFinite, stillAfter >= 0 else { return ("still-after", "must be 0 or more seconds") }
            guard motionAngle.isFinite, motionAngle > 0, motionAngle < 90 else { return ("still-motion-angle", "must be between 0 and 90 degrees") }
            guard motionAcceleration.isFinite, motionAcceleration > 0 else { return ("still-motion-acceleration", "must be a positive number of m/s²") }
            guard motionRate.isFinite, motionRate > 0 else { return ("still-motion-rate", "must be a positive number of degrees per second") }
            return nil
        }

        /// This configuration with ``stillInterval`` at most 80 % of the detector's `gap-reset`:
        /// a slow sample must never restart the detector's filters (they would have to settle
        /// again after every one).
        public func limited(gapReset: Double) -> Configuration {
            var limited = self
            limited.stillInterval = min(stillInterval, 0.8 * gapReset)
            return limited
        }
    }

    /// What the reader should do before its next reading.
    public enum Pace: Hashable, Sendable {
        /// Read at the sensor's own rate.
        case full
        /// Wait this many seconds after the last reading.
        case slow(interval: Double)
    }

    public let configuration: Configuration
    /// The pace after the last admitted sample.
    public private(set) var pace = Pace.full
    /// Counters: samples admitted, samples a replay dropped, times the pace slowed and sped up.
    public private(set) var statistics = Statistics()

    /// The first admitted sample of the current still stretch (`nil` until one, or after a restart).
    private var reference: Sample?
    private var referenceMagnitude = 0.0
    /// The last admitted sample's time.
    private var lastTime = -Double.infinity
    private let cosMotion: Double
    private let motionRate: Double

    /// Counts of what the governor did.
    public struct Statistics: Hashable, Sendable {
        public var admitted = 0
        public var dropped = 0
        public var slowed = 0
        public var woken = 0

        public init() {}
    }

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        cosMotion = cMath_cos(radians(configuration.motionAngle))
        motionRate = radians(configuration.motionRate)
    }

    /// How long the reader may wait after the last reading: `nil` at full rate.
    public var interval: Double? {
        if case .slow(let interval) = pace { return interval }
        return nil
    }

    /// Whether a reader obeying ``interval`` would have taken `sample` (a replay of a log recorded
    /// at full rate drops the others). Counts it either way. A sample up to 5 ms early is taken:
    /// a reader's timer and its timestamps are not the same clock reading.
    public mutating func admits(_ sample: Sample) -> Bool {
        if let interval, sample.time >= lastTime, sample.time < lastTime + interval - 0.005 {
            statistics.dropped += 1
            return false
        }
        statistics.admitted += 1
        return true
    }

    /// Takes an admitted sample, after the detector has processed it; `settled` is the
    /// detector's ``OrientationDetector/isSettled``. Returns the new pace.
    @discardableResult
    public mutating func observe(_ sample: Sample, settled: Bool) -> Pace {
        guard configuration.isEnabled else { return pace }
        // A non-finite time must not become the reference for the next ones (every comparison
        // with NaN is false: the pace would never slow again).
        defer { if sample.time.isFinite { lastTime = sample.time } }
        let a = sample.acceleration
        let magnitude = a.length
        guard a.isFinite, sample.time.isFinite, magnitude > 0, sample.time >= lastTime else {
            reference = nil
            return wake()
        }
        if let reference, isStill(a, magnitude: magnitude, rate: sample.angularRate, reference: reference) {
            if case .full = pace, settled, sample.time - reference.time >= configuration.stillAfter {
                pace = .slow(interval: configuration.stillInterval)
                statistics.slowed += 1
            }
            return pace
        }
        reference = sample
        referenceMagnitude = magnitude
        return wake()
    }

    private func isStill(_ a: Vector3, magnitude: Double, rate: Vector3?, reference: Sample) -> Bool {
        let cosine = a.dot(reference.acceleration) / (magnitude * referenceMagnitude)
        guard cosine >= cosMotion, abs(magnitude - referenceMagnitude) <= configuration.motionAcceleration else { return false }
        if let rate, rate.isFinite, rate.length > motionRate { return false }
        return true
    }

    private mutating func wake() -> Pace {
        if case .slow = pace { statistics.woken += 1 }
        pace = .full
        return pace
    }
}
