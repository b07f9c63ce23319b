/// Follows ``AccelerometerTilt`` over a stream of samples and says when it changes.
///
/// Contract:
/// - From ``AccelerometerTilt/undefined`` (after ``init(hysteresis:)`` or ``reset()``), the
///   first sample with a usable vector is classified by the peer's thresholds exactly.
/// - After that, leaving the current class needs the angle to be ``hysteresis`` degrees past the
///   threshold between them (default 2°): the peer classifies each reading alone and flickers
///   between two classes while a hand holds the device near 20° or 70°; a desktop showing the
///   value would flicker with it. Far from a threshold the result is the peer's.
/// - A sample whose vector is zero or not finite changes nothing.
/// - ``process(_:)`` returns the new class when it changed, else `nil`.
public struct TiltTracker: Sendable {
    public let hysteresis: Double
    public private(set) var current = AccelerometerTilt.undefined

    public init(hysteresis: Double = 2) {
        self.hysteresis = hysteresis
    }

    /// Back to ``AccelerometerTilt/undefined`` (a reopened sensor).
    public mutating func reset() {
        current = .undefined
    }

    /// The tilt after `sample`, when it differs from the one before.
    public mutating func process(_ sample: Sample) -> AccelerometerTilt? {
        guard let angle = AccelerometerTilt.angle(of: sample.acceleration) else { return nil }
        let plain = AccelerometerTilt.classify(angle: angle)
        guard plain != current else { return nil }
        if current != .undefined {
            // Only a change that also holds with the angle moved `hysteresis` back toward the
            // current class counts.
            let back = angle > 0 ? angle - hysteresis : angle + hysteresis
            let toward = current.rank > plain.rank ? angle + (angle > 0 ? hysteresis : -hysteresis) : back
            guard AccelerometerTilt.classify(angle: toward) == plain else { return nil }
        }
        current = plain
        return plain
    }
}

extension AccelerometerTilt {
    /// How far from upright a class is (0 vertical, 1 tilted, 2 face), for the hysteresis.
    fileprivate var rank: Int {
        switch self {
        case .undefined, .vertical: 0
        case .tiltedUp, .tiltedDown: 1
        case .faceUp, .faceDown: 2
        }
    }
}
