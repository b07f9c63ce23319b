import OrientationCore

/// How a convertible (2-in-1) sits: the attitude of its base and the angle of its hinge.
///
/// The base starts as a laptop on a table (its canonical frame, systemd hwdb's convention for
/// `ACCEL_LOCATION=base`: x toward the right edge, y from the hinge toward the front edge, z
/// down through the keyboard), then
/// - `pitch`: turns about the hinge axis (the base's x) by this many degrees; positive lowers the
///   front edge and raises the hinge (60 stands it on its front edge as half of a tent; 180
///   lays it keyboard down);
/// - `roll`: turns about the base's own y axis by this many degrees (90 stands the machine on its
///   side, hinge axis vertical);
/// - `hinge`: the angle between the halves in degrees (0 closed, 110 laptop, 180 flat, 360 folded
///   back); the display turns by it about the hinge relative to the base.
public struct ConvertiblePose: Hashable, Sendable {
    public var pitch: Double
    public var roll: Double
    public var hinge: Double

    public init(pitch: Double = 0, roll: Double = 0, hinge: Double) {
        self.pitch = pitch
        self.roll = roll
        self.hinge = hinge
    }

    /// Closed, on a table.
    public static let closed = ConvertiblePose(hinge: 0)
    /// Open as a laptop on a table.
    public static func laptop(_ hinge: Double = 110) -> ConvertiblePose { ConvertiblePose(hinge: hinge) }
    /// Opened out flat on a table.
    public static let flat = ConvertiblePose(hinge: 180)
    /// Standing as a tent on both edges, hinge on top (each half 30° off vertical at 300°).
    public static func tent(_ hinge: Double = 300) -> ConvertiblePose { ConvertiblePose(pitch: (hinge - 180) / 2, hinge: hinge) }
    /// Keyboard down on a table, the display standing up facing out.
    public static func stand(_ hinge: Double = 280) -> ConvertiblePose { ConvertiblePose(pitch: 180, hinge: hinge) }
    /// Folded back, lying screen up on a table.
    public static let tabletOnTable = ConvertiblePose(pitch: 180, hinge: 360)
}
