/// iio-sensor-proxy's `AccelerometerTilt` (3.6 and later): how far the screen leans back or
/// forward, in five classes, from one gravity vector. Pure; separate from orientationd's own
/// face-up/face-down decision (``OrientationDetector``, entered at 78°), which it does not affect.
///
/// Contract (the peer's thresholds, `src/orientation.c`, 3.6–3.9):
/// - the peer computes `atan2(z, √(x² + y²))` on its reading, in whole degrees (rounded half
///   away from zero), and calls +90 face-up: the screen facing the sky. Its frame shares x and y
///   with orientationd's (ARCHITECTURE.md §3) but not z: the screen facing the sky is z = +1 g
///   there and z = −g in orientationd's frame. So the angle here is `atan2(−z, √(x² + y²))` of
///   the canonical vector: `face-up` exactly when orientationd's own detector would say face-up
///   (issue 40: the facade said `face-down` on the face-up stretches of a replay while
///   `monitor-sensor` said `face-up`);
/// - |angle| ≤ 20 → ``vertical``; 20 < |angle| < 70 → ``tiltedUp`` (angle > 0) or
///   ``tiltedDown``; 70 ≤ |angle| ≤ 90 → ``faceUp`` or ``faceDown``;
/// - the angle does not depend on the vector's length, so a wrong `in_accel_scale` changes
///   nothing; a zero or non-finite vector is ``undefined`` (the peer has no reading then).
public enum AccelerometerTilt: String, Sendable, Hashable, CaseIterable {
    case undefined
    case vertical
    case tiltedUp = "tilted-up"
    case tiltedDown = "tilted-down"
    case faceUp = "face-up"
    case faceDown = "face-down"

    /// Up to this many degrees from upright: ``vertical``.
    public static let verticalLimit = 20.0
    /// From this many degrees: ``faceUp`` / ``faceDown``.
    public static let faceLimit = 70.0

    /// The classification of one gravity vector (canonical frame).
    public init(gravity: Vector3) {
        guard let angle = Self.angle(of: gravity) else {
            self = .undefined
            return
        }
        self = Self.classify(angle: angle)
    }

    /// The peer's tilt angle in whole degrees (+90: the screen facing the sky, canonical
    /// z = −g), or `nil` for a zero or non-finite vector.
    public static func angle(of gravity: Vector3) -> Double? {
        guard gravity.isFinite, gravity.lengthSquared > 0 else { return nil }
        let horizontal = (gravity.x * gravity.x + gravity.y * gravity.y).squareRoot()
        return degrees(cMath_atan2(-gravity.z, horizontal)).rounded()
    }

    /// The class of an angle (degrees, +90 the peer's face-up), by the peer's thresholds.
    public static func classify(angle: Double) -> AccelerometerTilt {
        let magnitude = abs(angle)
        if magnitude <= verticalLimit { return .vertical }
        if magnitude < faceLimit { return angle > 0 ? .tiltedUp : .tiltedDown }
        if magnitude <= 90 { return angle > 0 ? .faceUp : .faceDown }
        return .undefined
    }
}
