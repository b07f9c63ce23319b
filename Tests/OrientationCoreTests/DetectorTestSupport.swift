import OrientationCore

/// Noise-free samples of a device held still at a pose, for edge-case tests that need exact
/// geometry rather than realism.
enum Still {
    static let g = 9.80665

    /// Gravity in screen axes for in-plane `angle` (degrees counter-clockwise from portrait) and
    /// `tilt` (degrees, +90 face-up).
    static func gravity(angle: Double, tilt: Double) -> Vector3 {
        let a = angle * Double.pi / 180, b = tilt * Double.pi / 180
        return Vector3(-sinApprox(a) * cosApprox(b), -cosApprox(a) * cosApprox(b), -sinApprox(b)) * g
    }

    /// `count` samples every `1/rate` s from `start`.
    static func samples(angle: Double, tilt: Double = 20, from start: Double, duration: Double, rate: Double = 50,
                        gyro: Bool = false) -> [Sample] {
        let count = Int((duration * rate).rounded())
        return (0..<count).map { k in
            Sample(time: start + Double(k) / rate, acceleration: gravity(angle: angle, tilt: tilt),
                   angularRate: gyro ? .zero : nil)
        }
    }

    // Foundation-free trigonometry through the C library.
    static func sinApprox(_ x: Double) -> Double { _sin(x) }
    static func cosApprox(_ x: Double) -> Double { _cos(x) }
}

extension OrientationDetector {
    /// Feeds all samples; returns the events.
    mutating func run(_ samples: [Sample]) -> [OrientationEvent] {
        samples.compactMap { process($0) }
    }
}
