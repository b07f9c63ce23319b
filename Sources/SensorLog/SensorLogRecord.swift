import OrientationCore

/// One row of an orientationd log: what was read at one instant (docs/LOG-FORMAT.md).
///
/// In a single-sensor log every row is the display accelerometer's reading (``sample`` is never
/// `nil`). A convertible's log (v3, issue 30) also has the base accelerometer's readings and the
/// lid switch; the two accelerometers are separate chips read at different instants, so a row
/// carries whichever of them was read at its time: the display's (``acceleration``, with the
/// gyroscope, light and proximity readings that ride along with it), the base's (``base``), a
/// lid-switch state (``lidClosed``), or several of these when they share the time. The cells of
/// what was not read are empty.
public struct SensorLogRecord: Hashable, Sendable {
    /// Seconds, any origin; strictly increasing from row to row.
    public var time: Double
    /// The display's (or the only) accelerometer, canonical frame, m/s²; `nil` on a row that
    /// carries only the base's reading or a lid-switch state.
    public var acceleration: Vector3?
    /// The display's gyroscope, rad/s (only with ``acceleration``).
    public var angularRate: Vector3?
    /// An ambient light reading (only with ``acceleration``; see ``Sample/light``).
    public var light: Double?
    /// A proximity reading (only with ``acceleration``; see ``Sample/proximity``).
    public var proximity: Double?
    /// The base accelerometer, in the frame systemd's hwdb defines for `ACCEL_LOCATION=base`
    /// (after its mount matrix: identical to the display's reading while the lid is shut), m/s².
    public var base: Vector3?
    /// The lid switch (`SW_LID`) as of this time: `true` shut, `false` open, `nil` no news.
    public var lidClosed: Bool?

    @inlinable
    public init(time: Double, acceleration: Vector3? = nil, angularRate: Vector3? = nil, light: Double? = nil,
                proximity: Double? = nil, base: Vector3? = nil, lidClosed: Bool? = nil) {
        self.time = time
        self.acceleration = acceleration
        self.angularRate = angularRate
        self.light = light
        self.proximity = proximity
        self.base = base
        self.lidClosed = lidClosed
    }

    /// The row of a single-sensor sample.
    @inlinable
    public init(_ sample: Sample) {
        self.init(time: sample.time, acceleration: sample.acceleration, angularRate: sample.angularRate,
                  light: sample.light, proximity: sample.proximity)
    }

    /// The display's reading as a ``Sample`` (what the orientation detector takes), or `nil` on
    /// a row without one.
    @inlinable
    public var sample: Sample? {
        acceleration.map { Sample(time: time, acceleration: $0, angularRate: angularRate, light: light, proximity: proximity) }
    }
}
