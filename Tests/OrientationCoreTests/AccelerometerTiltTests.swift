import OrientationCore
import Testing

/// iio-sensor-proxy's AccelerometerTilt (3.6+): five classes by the angle of the screen's normal
/// above the horizontal, thresholds 20° and 70°, in whole degrees.
@Suite struct AccelerometerTiltTests {
    /// A gravity vector (canonical frame: face-up is −z) leaning `angle` degrees back from upright
    /// portrait, of length `g`.
    static func leaning(_ angle: Double, g: Double = 9.80665) -> Vector3 {
        let r = angle * Double.pi / 180
        return Vector3(0, -g * cosine(r), -g * sine(r))
    }

    static let rows: [(angle: Double, tilt: AccelerometerTilt)] = [
        (0, .vertical), (20, .vertical), (20.4, .vertical), (-20.4, .vertical),  // rounds to 20
        (20.6, .tiltedUp), (45, .tiltedUp), (69.4, .tiltedUp),
        (-20.6, .tiltedDown), (-69.4, .tiltedDown),
        (69.6, .faceUp), (70, .faceUp), (90, .faceUp),
        (-70, .faceDown), (-90, .faceDown),
    ]

    @Test(arguments: rows.indices)
    func classifiesByThePeersThresholds(_ index: Int) {
        let row = Self.rows[index]
        #expect(AccelerometerTilt(gravity: Self.leaning(row.angle)) == row.tilt, "\(row.angle)°")
        // The length does not matter: a wrong scale changes nothing.
        #expect(AccelerometerTilt(gravity: Self.leaning(row.angle, g: 9.80665 * 26)) == row.tilt)
        #expect(AccelerometerTilt(gravity: Self.leaning(row.angle, g: 0.001)) == row.tilt)
    }

    @Test func theWireNamesAreThePeers() {
        #expect(AccelerometerTilt.allCases.map(\.rawValue) == ["undefined", "vertical", "tilted-up", "tilted-down", "face-up", "face-down"])
        // Turned in the screen's plane: the same tilt (landscape leaning back).
        #expect(AccelerometerTilt(gravity: Vector3(-6.9, 0, -6.9)) == .tiltedUp)
        #expect(AccelerometerTilt(gravity: .zero) == .undefined)
        #expect(AccelerometerTilt(gravity: Vector3(.nan, 0, 0)) == .undefined)
    }

    /// The tracker: the peer's thresholds from far away, 2° of hysteresis near them.
    @Test func theTrackerHoldsNearAThreshold() {
        var tracker = TiltTracker()
        func feed(_ angle: Double) -> AccelerometerTilt? { tracker.process(Sample(time: 0, acceleration: Self.leaning(angle))) }
        #expect(feed(21) == .tiltedUp, "the first reading is classified exactly")
        #expect(feed(19) == nil && tracker.current == .tiltedUp, "within 2° of the threshold: held")
        #expect(feed(21) == nil)
        #expect(feed(17) == .vertical)
        #expect(feed(21) == nil && feed(22) == nil, "back up needs 23°")
        #expect(feed(23) == .tiltedUp)
        #expect(feed(71) == nil && feed(72) == .faceUp)
        #expect(feed(69) == nil && feed(67) == .tiltedUp)
        #expect(feed(5) == .vertical)
        #expect(feed(71) == .tiltedUp, "past 20° by far, not yet 2° past 70°: the class between")
        #expect(feed(-80) == .faceDown, "far jumps are taken at once")
        #expect(tracker.process(Sample(time: 0, acceleration: .zero)) == nil && tracker.current == .faceDown)
        tracker.reset()
        #expect(tracker.current == .undefined)
    }
}

extension AccelerometerTiltTests {
    /// The tracker's first classification (sines, no atan2) is the classifier's, at every tenth
    /// of a degree, rounding boundaries included.
    @Test func theTrackerClassifiesFreshSamplesAsTheClassifierDoes() {
        for tenth in -900...900 {
            let angle = Double(tenth) / 10
            var tracker = TiltTracker()
            let vector = Vector3(0.3 * Self.leaning(angle).y, 0.95 * Self.leaning(angle).y, Self.leaning(angle).z)
            let fresh = tracker.process(Sample(time: 0, acceleration: vector))
            #expect(fresh == AccelerometerTilt(gravity: vector), "\(angle)°")
        }
    }
}

private func sine(_ x: Double) -> Double { _sin(x) }
private func cosine(_ x: Double) -> Double { _cos(x) }
