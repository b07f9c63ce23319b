import OrientationCore

/// The angle between a convertible's two halves, measured from the gravity vectors of the
/// accelerometer in the display and the one in the base: the geometry of
/// docs/ARCHITECTURE.md §11, with no state.
///
/// **Convention (followed, not invented).** systemd's `hwdb.d/60-sensor.hwdb`, in its comment on
/// `ACCEL_LOCATION=base`, defines the angle between the halves as 0 when the device is folded
/// as a clamshell with its lid closed, and requires the base accelerometer's mount matrix to be
/// such that, after applying both sensors' mount matrices, the base sensor's readings are
/// *identical* to the display sensor's while the lid is closed. So both readings arrive in the
/// display's canonical frame as it lies when shut, and opening the lid by θ turns the display
/// by θ about the hinge axis relative to the base. (ChromeOS's EC computes its lid angle the
/// same way, projecting both vectors on the plane normal to the hinge axis (x) and taking the
/// signed angle between them; its sensors agree when the device lies *flat*, hence its extra
/// `180 −` step, which the hwdb convention does not need.)
///
/// The result is in [0, 360): 0 closed, about 110 as a laptop, 180 flat, approaching 360 folded
/// back. 0 and 360 are the same reading; which one it is takes history or a lid switch
/// (``PostureDetector``).
public struct HingeAngle: Hashable, Sendable {
    /// The angle in degrees, [0, 360).
    public var degrees: Double
    /// How well the angle is determined: the smaller, over the two sensors, of the sine of the
    /// angle between gravity and the hinge axis (1 with the hinge horizontal, 0 with it
    /// vertical). Rotating about a vertical axis does not change gravity's direction, so
    /// near 0 the angle is noise.
    public var clearance: Double

    @inlinable
    public init(degrees: Double, clearance: Double) {
        self.degrees = degrees
        self.clearance = clearance
    }

    /// Measures the hinge angle from the two gravity vectors, each already in its canonical
    /// frame (after its mount matrix; the base's following the hwdb convention above).
    ///
    /// Returns `nil` when a vector is not finite, or either has no component across the hinge
    /// axis at all (the hinge exactly vertical, or a zero reading): there is no angle.
    /// Any magnitude is accepted; judging whether the readings are gravity is the caller's job.
    @inlinable
    public static func measure(display: Vector3, base: Vector3, edge: HingeEdge = .bottom) -> HingeAngle? {
        guard display.isFinite, base.isFinite else { return nil }
        let axis = edge.axis
        let pd = display - axis * display.dot(axis)
        let pb = base - axis * base.dot(axis)
        let nd = pd.length, nb = pb.length
        let ld = display.length, lb = base.length
        guard nd > 0, nb > 0, ld > 0, lb > 0 else { return nil }
        // The display's axes turn by +θ about the axis, so gravity as the display reads it
        // turns by −θ: θ is the signed angle from the display's projection to the base's.
        let sine = axis.dot(pd.cross(pb))
        let cosine = pd.dot(pb)
        var angle = cMath_atan2(sine, cosine) * degreesPerRadian
        if angle < 0 { angle += 360 }
        if angle >= 360 { angle -= 360 }
        return HingeAngle(degrees: angle, clearance: min(nd / ld, nb / lb))
    }
}
