/// What a detector counts of its input, and the rule both detectors (orientation and posture)
/// apply before they look at a sample: its time and acceleration must be finite, the
/// acceleration's magnitude too (issue 38: a reading of 1e308 m/s² is finite but its magnitude
/// overflows, and it would poison every filter it entered), and the acceleration not exactly
/// (0, 0, 0) (a driver's "no data", never a real reading).
public struct SampleCounts: Hashable, Sendable {
    /// Every sample passed to the detector.
    public var samples = 0
    /// Samples ignored because a value was NaN or infinite, or the acceleration's magnitude
    /// overflows.
    public var ignoredNonFinite = 0
    /// Samples ignored because the acceleration was exactly (0, 0, 0).
    public var ignoredZero = 0
    /// Filter restarts after a gap longer than `gap-reset`.
    public var gapResets = 0
    /// Filter restarts because a timestamp (of the sample's own sensor) went backwards.
    public var timeReversals = 0
    /// Changes published.
    public var events = 0

    public init() {}

    /// Whether a detector uses a sample with this time and acceleration.
    @inlinable
    public static func accepts(time: Double, acceleration a: Vector3) -> Bool {
        a.isFinite && a.lengthSquared.isFinite && time.isFinite && (a.x != 0 || a.y != 0 || a.z != 0)
    }

    /// Counts one sample; returns whether the detector may use it (counting why not).
    @inlinable
    public mutating func admit(time: Double, acceleration a: Vector3) -> Bool {
        samples += 1
        guard a.isFinite, a.lengthSquared.isFinite, time.isFinite else {
            ignoredNonFinite += 1
            return false
        }
        guard a.x != 0 || a.y != 0 || a.z != 0 else {
            ignoredZero += 1
            return false
        }
        return true
    }
}
