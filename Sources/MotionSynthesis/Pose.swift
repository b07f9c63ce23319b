import OrientationCore

/// How a device is held, in the two angles a user thinks in.
///
/// - `angle`: in-plane turn in degrees, counter-clockwise as the viewer sees it, from upright
///   portrait (0 portrait, 90 landscape-left, 180 upside down, −90 or 270 landscape-right). Moves
///   interpolate this number, so 0 → −90 turns clockwise and 0 → 270 turns counter-clockwise.
/// - `tilt`: degrees the screen is leaned back toward the sky (+90 lying face-up, 0 upright,
///   −90 face-down, e.g. held overhead in bed).
public struct Pose: Hashable, Sendable {
    public var angle: Double
    public var tilt: Double

    public init(angle: Double, tilt: Double) {
        self.angle = angle
        self.tilt = tilt
    }

    public static func portrait(tilt: Double = 20) -> Pose { Pose(angle: 0, tilt: tilt) }
    public static func landscapeLeft(tilt: Double = 20) -> Pose { Pose(angle: 90, tilt: tilt) }
    public static func upsideDown(tilt: Double = 20) -> Pose { Pose(angle: 180, tilt: tilt) }
    public static func landscapeRight(tilt: Double = 20) -> Pose { Pose(angle: -90, tilt: tilt) }

    /// The orientation a careful user would call this pose, by the nearest axis.
    public var nominalOrientation: DeviceOrientation {
        if tilt >= 75 { return .faceUp }
        if tilt <= -75 { return .faceDown }
        let turns = Int((angle / 90).rounded())
        return DeviceOrientation.inPlane[((turns % 4) + 4) % 4]
    }
}
