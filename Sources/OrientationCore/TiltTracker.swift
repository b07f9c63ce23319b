/// Follows ``AccelerometerTilt`` over a stream of samples and says when it changes.
///
/// Contract:
/// - Every sample is classified exactly as ``AccelerometerTilt/init(gravity:)`` classifies it
///   (the peer's thresholds on the angle rounded to whole degrees: an angle 1° past a threshold
///   is past it, as the peer's acceptance suite checks).
/// - From ``AccelerometerTilt/undefined`` (after ``init(settle:)`` or ``reset()``), the first
///   sample with a usable vector decides at once.
/// - After that, a new class is taken once it has been every sample's class for ``settle``
///   seconds (by sample time, never the wall clock; default 0.1 s). The peer takes each
///   reading alone and flickers between two values while a hand holds the device near 20° or
///   70°; a desktop showing the value would flicker with it. A class that lasts is the peer's.
/// - A sample whose vector is zero or not finite changes nothing; a sample whose time goes
///   backwards restarts the wait.
/// - ``process(_:)`` returns the new class when it changed, else `nil`.
/// - No inverse trigonometry per sample (docs/PERFORMANCE.md): the rounding boundaries are
///   precomputed as sines.
public struct TiltTracker: Sendable {
    public let settle: Double
    public private(set) var current = AccelerometerTilt.undefined
    /// The class the latest samples agree on, and since when, while it differs from ``current``.
    private var pending: (tilt: AccelerometerTilt, since: Double)? = nil

    /// sin of the rounding boundaries: an angle below 20.5° rounds to 20 (vertical), one below
    /// 69.5° to 69 (tilted).
    private let verticalSine = cMath_sin(radians(AccelerometerTilt.verticalLimit + 0.5))
    private let faceSine = cMath_sin(radians(AccelerometerTilt.faceLimit - 0.5))

    public init(settle: Double = 0.1) {
        self.settle = settle
    }

    /// Back to ``AccelerometerTilt/undefined`` (a reopened sensor).
    public mutating func reset() {
        current = .undefined
        pending = nil
    }

    /// The tilt after `sample`, when it differs from the one before.
    public mutating func process(_ sample: Sample) -> AccelerometerTilt? {
        let g = sample.acceleration
        let length = g.length
        guard g.isFinite, length > 0 else { return nil }
        // The peer's angle (``AccelerometerTilt/angle(of:)``) through its sine, −z/|g| (the
        // peer's z is the canonical frame's, negated).
        let tilt = classify(sine: -g.z / length)
        guard tilt != current else {
            pending = nil
            return nil
        }
        if current != .undefined {
            guard let waiting = pending, waiting.tilt == tilt, sample.time >= waiting.since else {
                pending = (tilt, sample.time)
                if settle > 0 { return nil }
                current = tilt
                pending = nil
                return tilt
            }
            guard sample.time - waiting.since >= settle else { return nil }
        }
        current = tilt
        pending = nil
        return tilt
    }

    private func classify(sine: Double) -> AccelerometerTilt {
        let magnitude = abs(sine)
        if magnitude < verticalSine { return .vertical }
        if magnitude < faceSine { return sine > 0 ? .tiltedUp : .tiltedDown }
        return sine > 0 ? .faceUp : .faceDown
    }
}
