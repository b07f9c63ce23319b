/// One value from a light, proximity or compass sensor, in the units clients get.
public enum AuxiliaryReading: Sendable, Hashable {
    /// An ambient light level (after the per-device scale) and its unit.
    case light(level: Double, unit: LightUnit)
    /// Whether something is near the proximity sensor (after ``ProximityHysteresis``).
    case proximity(near: Bool)
    /// The heading from magnetic north, degrees in [0, 360).
    case compass(heading: Double)

    /// The sensor kind this reading comes from.
    public var kind: AuxiliarySensorKind {
        switch self {
        case .light: .light
        case .proximity: .proximity
        case .compass: .compass
        }
    }
}

/// What a light, proximity or compass sensor looks like to clients: whether the daemon has one
/// (`present`; `HasAmbientLight` and friends on D-Bus) and its last reading (`nil` while closed
/// before any reading, or when absent).
public struct AuxiliarySensorState: Sendable, Hashable {
    public var kind: AuxiliarySensorKind
    public var present: Bool
    public var reading: AuxiliaryReading?

    public init(kind: AuxiliarySensorKind, present: Bool = false, reading: AuxiliaryReading? = nil) {
        self.kind = kind
        self.present = present
        self.reading = reading
    }
}
