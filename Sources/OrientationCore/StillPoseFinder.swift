/// Finds the poses a device is held still in, from its samples: what `orientationctl
/// calibrate` waits for after each instruction (no key to press, which a tablet has no
/// keyboard for), and what `calibrate --from-log` reads out of a recording.
///
/// Contract: ``add(_:)`` returns the mean raw reading of a pose once the device has stayed
/// within ``stillAngle`` of where the pose began, with a magnitude near gravity, for
/// ``holdTime`` seconds of sample time; each still stretch yields at most one pose, and only if
/// it is at least ``separation`` degrees from the previous pose returned (so holding a pose
/// longer, or settling back into it, is not a new one). Time comes from sample timestamps only.
public struct StillPoseFinder: Sendable {
    /// Seconds a pose must be held.
    public var holdTime = 1.0
    /// Degrees the reading may wander from where the pose began.
    public var stillAngle = 4.0
    /// Degrees between one pose and the next.
    public var separation = 45.0
    /// Magnitudes accepted as a still reading (m/s²).
    public var gravityRange = MountMatrixCalibration.gravityRange

    private var start: (time: Double, reading: Vector3)? = nil
    private var sum = Vector3.zero
    private var count = 0
    private var reported = false
    private var previous: Vector3? = nil

    public init() {}

    /// Feeds one sample; returns a pose's mean reading when one completes.
    public mutating func add(_ sample: Sample) -> Vector3? {
        let reading = sample.acceleration
        guard reading.isFinite, gravityRange.contains(reading.length) else {
            start = nil
            return nil
        }
        if let current = start, Self.degreesBetween(current.reading, reading) <= stillAngle, sample.time >= current.time {
            sum += reading
            count += 1
        } else {
            start = (sample.time, reading)
            sum = reading
            count = 1
            reported = false
        }
        guard let current = start, !reported, sample.time - current.time >= holdTime else { return nil }
        reported = true
        let mean = sum * (1 / Double(count))
        if let previous, Self.degreesBetween(previous, mean) < separation { return nil }
        previous = mean
        return mean
    }

    static func degreesBetween(_ a: Vector3, _ b: Vector3) -> Double {
        degrees(cMath_atan2(a.cross(b).length, a.dot(b)))
    }
}
