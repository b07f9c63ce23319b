import OrientationCore

/// A change of the published ``Posture``.
public struct PostureEvent: Hashable, Sendable {
    /// The timestamp of the sample (or lid-switch change) that completed the decision (seconds,
    /// the samples' clock).
    public var time: Double
    /// The posture now published.
    public var posture: Posture
    /// The posture published before (`unknown` for the first decision).
    public var previous: Posture
    /// The hinge angle the decision was taken at, in degrees within 0…360 (0 closed, 360 folded
    /// back), or `nil` when there is none: for ``Posture/unknown``, and for ``Posture/closed``
    /// decided by the lid switch while no angle could be measured.
    public var hingeAngle: Double?

    public init(time: Double, posture: Posture, previous: Posture, hingeAngle: Double?) {
        self.time = time
        self.posture = posture
        self.previous = previous
        self.hingeAngle = hingeAngle
    }
}
