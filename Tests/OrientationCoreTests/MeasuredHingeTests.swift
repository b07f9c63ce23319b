import OrientationCore
import PostureCore
import PostureSynthesis
import Testing

/// Issue 30, item 1: a machine that measures its hinge angle itself (cros-ec's lid angle, the
/// HID hinge sensor) needs no base accelerometer, and knows 0° from 360°.
@Suite struct MeasuredHingeTests {
    /// The display's readings for `pose` (canonical frame), `seconds` of them at 10 Hz from `start`.
    static func display(_ pose: ConvertiblePose, from start: Double, seconds: Double) -> [PostureSample] {
        var script = ConvertibleScript(start: pose)
        script.hold(seconds)
        script.accelerometerNoise = 0
        script.tremor = 0
        return script.samples(rate: 10).filter { $0.location == .display }.map {
            PostureSample(time: $0.time + start, location: .display, acceleration: $0.acceleration)
        }
    }

    /// Feeds the display's readings with the measured angle beside each; returns the postures published.
    static func run(_ steps: [(ConvertiblePose, Double?)], detector: inout PostureDetector) -> [Posture] {
        var published: [Posture] = []
        var t = 0.0
        for (pose, measured) in steps {
            for sample in display(pose, from: t, seconds: 2) {
                if let event = detector.setMeasuredHinge(measured, at: sample.time) { published.append(event.posture) }
                if let event = detector.process(sample) { published.append(event.posture) }
            }
            t += 2.1
        }
        return published
    }

    @Test func theMachinesAngleDecidesWithoutABaseAccelerometer() throws {
        var detector = try PostureDetector()
        let published = Self.run([(.closed, 3), (.laptop(), 110), (.flat, 180), (.tabletOnTable, 357), (.laptop(), 112)], detector: &detector)
        // Closed and folded back, which two accelerometers cannot tell apart at once, are told
        // by the angle.
        #expect(published == [.closed, .laptop, .flat, .tablet, .laptop], "\(published)")
        #expect(detector.hold == nil)
    }

    @Test func tentAndStandStillComeFromHowTheDisplayHangs() throws {
        var detector = try PostureDetector()
        let published = Self.run([(.laptop(), 110), (.tent(), 300), (.laptop(), 110), (.stand(), 280)], detector: &detector)
        #expect(published == [.laptop, .tent, .laptop, .stand], "\(published)")
    }

    /// Unreliable (the EC's 500 becomes `nil`) or gone stale: without a base accelerometer
    /// there is no angle, and the posture is held with the reason.
    @Test func anUnreliableAngleHoldsThePosture() throws {
        var detector = try PostureDetector()
        let published = Self.run([(.laptop(), 110), (.flat, nil)], detector: &detector)
        #expect(published == [.laptop], "\(published)")
        #expect(detector.posture == .laptop && detector.hold == .waitingForSensors)
        #expect(detector.setMeasuredHinge(400, at: 10) == nil && detector.measuredHinge == nil, "outside 0…360: none")
    }
}
