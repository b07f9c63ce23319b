/// One sensor reading, already in the canonical device frame (docs/ARCHITECTURE.md §3).
///
/// - `time` is in seconds with any origin; consecutive samples fed to an ``OrientationDetector``
///   should have increasing times (the detector tolerates violations, see its documentation).
/// - `acceleration` is the gravity vector in screen axes, in m/s² (upright portrait ≈ (0, −9.81, 0)).
/// - `angularRate` is the gyroscope reading in rad/s about the same axes, or `nil` when the device
///   has no gyroscope or this reading carried none.
/// - `light` and `proximity` ride along in recordings (log v2, docs/LOG-FORMAT.md): a new ambient
///   light level (after the per-device scale, before ``LightLevelFilter``) or raw proximity level
///   taken since the previous sample, else `nil`. The detector ignores them.
public struct Sample: Hashable, Sendable {
    public var time: Double
    public var acceleration: Vector3
    public var angularRate: Vector3?
    public var light: Double?
    public var proximity: Double?

    @inlinable
    public init(time: Double, acceleration: Vector3, angularRate: Vector3? = nil, light: Double? = nil, proximity: Double? = nil) {
        self.time = time
        self.acceleration = acceleration
        self.angularRate = angularRate
        self.light = light
        self.proximity = proximity
    }
}
