import OrientationCore
import Testing

/// iio-sensor-proxy's AccelerometerTilt (3.6+): five classes by the angle of the screen's normal
/// above the horizontal, thresholds 20° and 70°, in whole degrees.
@Suite struct AccelerometerTiltTests {
    /// A canonical gravity vector of length `g` leaning back `angle` degrees from upright
    /// portrait: +90 lies with the screen facing the sky (canonical z = −g), which the peer
    /// calls face-up.
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
        // The peer's acceptance suite's values (its frame: x −25.6, z −25.6 is tilted-down,
        // z 72.4 is face-up) with z in orientationd's sign.
        #expect(AccelerometerTilt(gravity: Vector3(-25.6, 0, 25.6)) == .tiltedDown)
        #expect(AccelerometerTilt(gravity: Vector3(-25.6, 0, -72.4)) == .faceUp)
        // Issue 40: lying with the screen to the sky is face-up, as orientationd's own
        // detector calls it (ARCHITECTURE.md §3: (0, 0, −9.81)); the screen to the floor is face-down.
        #expect(AccelerometerTilt(gravity: Vector3(0, 0, -9.81)) == .faceUp)
        #expect(AccelerometerTilt(gravity: Vector3(0, 0, 9.81)) == .faceDown)
        #expect(AccelerometerTilt(gravity: .zero) == .undefined)
        #expect(AccelerometerTilt(gravity: Vector3(.nan, 0, 0)) == .undefined)
    }

    /// The tracker: the peer's exact classes, each new one taken once it has lasted 0.1 s of
    /// sample time (a reading flickering across a threshold changes nothing).
    @Test func theTrackerTakesAClassThatLasts() {
        var tracker = TiltTracker()
        var time = 0.0
        func feed(_ angle: Double) -> AccelerometerTilt? {
            defer { time += 0.0625 }  // 16 Hz, exact in binary
            return tracker.process(Sample(time: time, acceleration: Self.leaning(angle)))
        }
        #expect(feed(21) == .tiltedUp, "the first reading decides at once")
        for angle in [19.0, 21, 19, 21, 19, 21] { #expect(feed(angle) == nil, "flicker across 20°: held") }
        #expect(tracker.current == .tiltedUp)
        #expect(feed(19) == nil && feed(19) == nil && feed(19) == .vertical, "lasted 0.1 s")
        #expect(feed(70.6) == nil && feed(70.6) == nil && feed(70.6) == .faceUp, "1° past 70: the peer's face-up, no margin")
        #expect(feed(-80) == nil && feed(-80) == nil && feed(-80) == .faceDown)
        #expect(tracker.process(Sample(time: time, acceleration: .zero)) == nil && tracker.current == .faceDown)
        tracker.reset()
        #expect(tracker.current == .undefined)
        #expect(feed(0) == .vertical)
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
