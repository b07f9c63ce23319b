/// A change of the published device orientation.
public struct OrientationEvent: Hashable, Sendable {
    /// The timestamp of the sample that completed the decision (seconds, the samples' clock).
    public var time: Double
    /// The orientation now published.
    public var orientation: DeviceOrientation
    /// The orientation published before (`unknown` for the first decision).
    public var previous: DeviceOrientation

    public init(time: Double, orientation: DeviceOrientation, previous: DeviceOrientation) {
        self.time = time
        self.orientation = orientation
        self.previous = previous
    }
}
