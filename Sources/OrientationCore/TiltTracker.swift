/// Follows ``AccelerometerTilt`` over a stream of samples and says when it changes.
///
/// Contract:
/// - From ``AccelerometerTilt/undefined`` (after ``init(hysteresis:)`` or ``reset()``), the
///   first sample with a usable vector is classified exactly as ``AccelerometerTilt/init(gravity:)``
///   does (the peer's thresholds on the angle rounded to whole degrees).
/// - After that, a class changes only when the angle is ``hysteresis`` degrees (default 2°) past
///   a threshold: each sample is classified with its angle moved that far toward the current
///   class, and a different result is the new class. The peer classifies each reading alone and
///   flickers between two values while a hand holds the device near 20° or 70°; a desktop
///   showing the value would flicker with it. Far from a threshold the result is the peer's.
/// - A sample whose vector is zero or not finite changes nothing.
/// - ``process(_:)`` returns the new class when it changed, else `nil`.
/// - No inverse trigonometry per sample (docs/PERFORMANCE.md): the angle's thresholds are
///   precomputed as sines, and moving it by ``hysteresis`` is a rotation of (cos, sin).
public struct TiltTracker: Sendable {
    public let hysteresis: Double
    public private(set) var current = AccelerometerTilt.undefined

    /// sin of the rounding boundaries: an angle below 20.5° rounds to 20 (vertical), one below
    /// 69.5° to 69 (tilted).
    private let verticalSine = cMath_sin(radians(AccelerometerTilt.verticalLimit + 0.5))
    private let faceSine = cMath_sin(radians(AccelerometerTilt.faceLimit - 0.5))
    private let shiftSine: Double
    private let shiftCosine: Double

    public init(hysteresis: Double = 2) {
        self.hysteresis = hysteresis
        shiftSine = cMath_sin(radians(hysteresis))
        shiftCosine = cMath_cos(radians(hysteresis))
    }

    /// Back to ``AccelerometerTilt/undefined`` (a reopened sensor).
    public mutating func reset() {
        current = .undefined
    }

    /// The tilt after `sample`, when it differs from the one before.
    public mutating func process(_ sample: Sample) -> AccelerometerTilt? {
        let g = sample.acceleration
        let length = g.length
        guard g.isFinite, length > 0 else { return nil }
        // The elevation of the screen's normal: sin = −z/|g|, cos = horizontal/|g| (≥ 0).
        var sine = -g.z / length
        if current != .undefined {
            let cosine = (g.x * g.x + g.y * g.y).squareRoot() / length
            let toward = current.representativeSine
            if sine < toward {
                sine = sine * shiftCosine + cosine * shiftSine
            } else if sine > toward {
                sine = sine * shiftCosine - cosine * shiftSine
            }
        }
        let tilt = classify(sine: sine)
        guard tilt != current else { return nil }
        current = tilt
        return tilt
    }

    private func classify(sine: Double) -> AccelerometerTilt {
        let magnitude = abs(sine)
        if magnitude < verticalSine { return .vertical }
        if magnitude < faceSine { return sine > 0 ? .tiltedUp : .tiltedDown }
        return sine > 0 ? .faceUp : .faceDown
    }
}

extension AccelerometerTilt {
    /// sin of the class's middle angle (0°, ±45°, ±90°): the direction "toward" the class.
    fileprivate var representativeSine: Double {
        switch self {
        case .undefined, .vertical: 0
        case .tiltedUp: 0.5.squareRoot()
        case .tiltedDown: -(0.5.squareRoot())
        case .faceUp: 1
        case .faceDown: -1
        }
    }
}
