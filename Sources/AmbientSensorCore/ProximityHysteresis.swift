/// Near or far from a proximity sensor's raw level, with a margin below the near level so a
/// hand held at the threshold does not blank and unblank the screen.
///
/// Rule: from far, `near` needs a level above the near level (the level the device's hwdb entry
/// or driver calls near); from near, `far` needs a level at or below 0.9 × it (iio-sensor-proxy's
/// low water mark). The peer picks 0.9 × or 1.1 × by whether the *last raw level* was above the
/// near level: a steady level above the near level reads near from its second reading on, one
/// at or below it far, and a level wobbling around it flips with each reading. Here a steady
/// level gives the same answer as the peer's (a level 1.0–1.1 × the near level is near, as phosh
/// users' hwdb levels expect: iio-sensor-proxy's own suite checks 129 for a level of 128), from
/// its first reading, and a wobble between 0.9 × and the level changes nothing.
public struct ProximityHysteresis: Sendable, Hashable {
    /// The level at which something counts as near (udev `PROXIMITY_NEAR_LEVEL` or sysfs
    /// `in_proximity_nearlevel`); positive.
    public let nearLevel: Double
    /// The state now (far until a level says otherwise).
    public private(set) var isNear = false

    /// Once near, a level at or below this fraction of the near level is far.
    public static let lowFactor = 0.9

    public init(nearLevel: Double) {
        self.nearLevel = nearLevel
    }

    /// Takes one raw level; returns the state after it.
    @discardableResult
    public mutating func update(level: Double) -> Bool {
        isNear = level > nearLevel * (isNear ? Self.lowFactor : 1)
        return isNear
    }
}
