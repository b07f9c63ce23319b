/// What one discovery found: the motion sensors and the light, proximity and compass sensors,
/// each marked with the backend that found it.
public struct DiscoveredSensors: Sendable, Hashable {
    /// Accelerometers, gyroscopes and the other IIO devices the motion discovery lists.
    public var motion: [SensorDescription]
    /// Light, proximity and compass sensors.
    public var auxiliary: [AuxiliarySensorDescription]

    public init(motion: [SensorDescription] = [], auxiliary: [AuxiliarySensorDescription] = []) {
        self.motion = motion
        self.auxiliary = auxiliary
    }

    /// Both lists, `other`'s after this one's.
    public mutating func append(_ other: DiscoveredSensors) {
        motion += other.motion
        auxiliary += other.auxiliary
    }
}
