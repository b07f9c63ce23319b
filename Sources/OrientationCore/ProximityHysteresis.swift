/// Near or far from a proximity sensor's raw level, with a margin around the near level so a
/// hand held at the threshold does not blank and unblank the screen.
///
/// Rule (the factors are iio-sensor-proxy's, 0.9 and 1.1): from far, `near` needs a level above
/// 1.1 × the near level; from near, `far` needs a level at or below 0.9 × it. The peer chooses
/// the factor by whether the *last level* was above the near level, so a level steady between
/// 1.0 and 1.1 × reads far, then near on the second reading; here the factor follows the
/// published state, so a steady level never changes the answer.
public struct ProximityHysteresis: Sendable, Hashable {
    /// The level at which something counts as near (udev `PROXIMITY_NEAR_LEVEL` or sysfs
    /// `in_proximity_nearlevel`); positive.
    public let nearLevel: Double
    /// The state now (far until a level says otherwise).
    public private(set) var isNear = false

    public static let lowFactor = 0.9
    public static let highFactor = 1.1

    public init(nearLevel: Double) {
        self.nearLevel = nearLevel
    }

    /// Takes one raw level; returns the state after it.
    @discardableResult
    public mutating func update(level: Double) -> Bool {
        isNear = level > nearLevel * (isNear ? Self.lowFactor : Self.highFactor)
        return isNear
    }
}
