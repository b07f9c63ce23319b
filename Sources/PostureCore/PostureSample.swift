import OrientationCore

/// One reading of one of a convertible's two accelerometers, for ``PostureDetector``.
///
/// `acceleration` is in that sensor's canonical frame, after its mount matrix: for the display
/// sensor the frame of docs/ARCHITECTURE.md §3; for the base sensor the frame systemd's hwdb
/// defines for `ACCEL_LOCATION=base` (identical to the display's readings while the lid is
/// closed; see ``HingeAngle``). Units m/s², the gravity vector (a device lying face up reads
/// about (0, 0, −9.81)). `time` is in seconds on the clock both sensors share.
public struct PostureSample: Hashable, Sendable {
    /// Which half of the machine the accelerometer sits in (udev's `ACCEL_LOCATION`).
    public enum Location: String, CaseIterable, Hashable, Sendable {
        case display, base
    }

    public var time: Double
    public var location: Location
    public var acceleration: Vector3

    @inlinable
    public init(time: Double, location: Location, acceleration: Vector3) {
        self.time = time
        self.location = location
        self.acceleration = acceleration
    }
}
