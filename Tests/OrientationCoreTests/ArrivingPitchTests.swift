import OrientationCore
import Testing

/// `arrive-angle` (issue 41, item 2: "Pitching toward upright is arriving", docs/DETECTOR.md):
/// while the device is still moving, an in-plane change no longer waits for the slow estimate to
/// be steady when the device pitches toward upright inside the new orientation, because a pitch
/// keeps which edge is up. Rolls, and pitches that carry on past upright to face-down, are
/// still held by the steadiness rule.
@Suite struct ArrivingPitchTests {
    /// A minimum-jerk move from (`fromAngle`, `fromTilt`) to (`toAngle`, `toTilt`) in `duration`
    /// s, after 2 s held still and followed by 2 s held still, at `rate` Hz, no gyroscope; a
    /// hand's 0.3° tremor at 8 Hz on the tilt.
    struct Move: CustomTestStringConvertible, Sendable {
        var what: String
        var fromAngle: Double, fromTilt: Double
        var toAngle: Double, toTilt: Double
        var duration: Double
        var rate: Double
        /// The orientations published, in order.
        var expected: [DeviceOrientation]
        /// True when the last one must be published while the pitch is still well under way, at
        /// least ``lead`` before it ends. The steadiness rule alone waits until the motion has
        /// eased enough for the still path (0.04–0.12 s before the end of these moves).
        var beforeRest: Bool

        var testDescription: String { "\(what), \(duration) s at \(Int(rate)) Hz" }
        static let hold = 2.0
        static let lead = 0.15

        func samples() -> [Sample] {
            let total = Self.hold * 2 + duration
            return (0..<Int((total * rate).rounded())).map { k in
                let t = Double(k) / rate
                let s = min(max((t - Self.hold) / duration, 0), 1)
                let m = s * s * s * (10 - 15 * s + 6 * s * s)
                let tremor = 0.3 * Still.sinApprox(2 * Double.pi * 8 * t)
                return Sample(time: t, acceleration: Still.gravity(angle: fromAngle + (toAngle - fromAngle) * m,
                                                                   tilt: fromTilt + (toTilt - fromTilt) * m + tremor))
            }
        }
    }

    static let moves: [Move] = [50.0, 100].flatMap { rate in [
        Move(what: "raised from flat into landscape-right", fromAngle: 270, fromTilt: 88, toAngle: 270, toTilt: 30,
             duration: 1.0, rate: rate, expected: [.faceUp, .landscapeRight], beforeRest: true),
        Move(what: "raised from flat into portrait", fromAngle: 0, fromTilt: 88, toAngle: 0, toTilt: 25,
             duration: 1.2, rate: rate, expected: [.faceUp, .portrait], beforeRest: true),
        Move(what: "lifted into upside down, turning a little on the way", fromAngle: 200, fromTilt: 85, toAngle: 180,
             toTilt: 35, duration: 1.0, rate: rate, expected: [.faceUp, .portraitUpsideDown], beforeRest: true),
        // A roll keeps its tilt: nothing to arrive by, so the steadiness rule decides as before.
        Move(what: "rolled from portrait to landscape-left", fromAngle: 0, fromTilt: 30, toAngle: 90, toTilt: 30,
             duration: 1.0, rate: rate, expected: [.portrait, .landscapeLeft], beforeRest: false),
        // Flipped over the long edge: it pitches toward upright through landscape-right, then
        // on past it to face-down. Nothing in passing.
        Move(what: "flipped from face-up to face-down over the long edge", fromAngle: 270, fromTilt: 88, toAngle: 270,
             toTilt: -88, duration: 2.0, rate: rate, expected: [.faceUp, .faceDown], beforeRest: false),
        Move(what: "laid back from portrait to flat", fromAngle: 0, fromTilt: 30, toAngle: 0, toTilt: 88,
             duration: 1.0, rate: rate, expected: [.portrait, .faceUp], beforeRest: false),
    ] }

    @Test(arguments: moves)
    func aPitchTowardUprightIsArriving(_ move: Move) throws {
        var detector = try OrientationDetector()
        let events = detector.run(move.samples())
        #expect(events.map(\.orientation) == move.expected)
        let end = Move.hold + move.duration
        if move.beforeRest {
            let last = try #require(events.last)
            #expect(last.time <= end - Move.lead, "published at \(last.time) s, the pitch ends at \(end) s")
        }
        // A roll, a flip and a pitch toward flat are decided exactly as without the rule.
        var off = OrientationDetector.Configuration()
        off.arriveAngle = 180
        var without = try OrientationDetector(configuration: off)
        let before = without.run(move.samples())
        if !move.beforeRest { #expect(events == before) }
    }
}
