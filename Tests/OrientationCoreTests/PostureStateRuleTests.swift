import OrientationCore
import PostureCore
import Testing

/// What the posture topic says after each input: the rule the daemon's live posture and a
/// replayed convertible's log share.
@Suite struct PostureStateRuleTests {
    @Test func aSwitchAloneDecidesAndHoldsNothingAndAChangeIsPublished() throws {
        let detector = try PostureDetector()
        var rule = PostureStateRule()
        let previous = PostureState(present: true, posture: .unknown, hingeAngle: nil, hold: .waitingForSensors)
        // Nothing measured, no switch: unknown; published only if the hold (why) is new.
        let (still, told) = rule.next(after: nil, detector: detector, previous: previous)
        #expect(still.posture == .unknown)
        #expect(told == (still.hold != previous.hold))
        // The machine's switch says tablet: decided, nothing held, published.
        rule.tabletMode = true
        let (tablet, publishes) = rule.next(after: nil, detector: detector, previous: still)
        #expect(tablet.posture == .tablet && tablet.hold == nil && tablet.heldFor == nil && publishes)
        // Told again with nothing new: kept, not published.
        let (same, again) = rule.next(after: nil, detector: detector, previous: tablet)
        #expect(same.posture == .tablet && !again)
    }

    @Test func anEventIsPublishedWithItsAngleAndTheSwitchHasTheLastWord() throws {
        let detector = try PostureDetector()
        var rule = PostureStateRule()
        let event = PostureEvent(time: 1, posture: .tent, previous: .laptop, hingeAngle: 300)
        let (tent, publishes) = rule.next(after: event, detector: detector, previous: PostureState(present: true))
        #expect(tent.posture == .tent && tent.hingeAngle == 300 && publishes && rule.measured == .tent)
        rule.tabletMode = false
        let (laptop, changed) = rule.next(after: nil, detector: detector, previous: tent)
        #expect(laptop.posture == .laptop && changed, "unfolded by the firmware's word")
    }
}
