/// One sensor reading, already in the canonical device frame (docs/ARCHITECTURE.md §3).
///
/// - `time` is in seconds with any origin; consecutive samples fed to an ``OrientationDetector``
///   should have increasing times (the detector tolerates violations, see its documentation).
/// - `acceleration` is the gravity vector in screen axes, in m/s² (upright portrait ≈ (0, −9.81, 0)).
/// - `angularRate` is the gyroscope reading in rad/s about the same axes, or `nil` when the device
///   has no gyroscope or this reading carried none.
public struct Sample: Hashable, Sendable {
    public var time: Double
    public var acceleration: Vector3
    public var angularRate: Vector3?

    @inlinable
    public init(time: Double, acceleration: Vector3, angularRate: Vector3? = nil) {
        self.time = time
        self.acceleration = acceleration
        self.angularRate = angularRate
    }
}
