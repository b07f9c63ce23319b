import OrientationCore

/// What a convertible's `posture` topic says after each input to its ``PostureDetector``: one
/// rule for the daemon's live posture and for a replayed convertible's log.
///
/// - The posture is ``TabletModeSwitchRule``'s, from the detector's last decision (the angle's
///   word), the machine's tablet-mode switch (``tabletMode``, `nil` without one) and the lid
///   switch; decided by the switches alone (no angle measured), nothing is held.
/// - An event carries the hinge angle it was decided at; otherwise the state carries the angle
///   the detector believes now (issue 40), and how long the posture has been held (issue 38).
/// - The state is to be published when an event came, when the posture changed, or while it is
///   unknown when the hold (why) changed; otherwise it is kept for `get` without telling anyone.
public struct PostureStateRule: Sendable {
    /// The detector's last decision.
    public private(set) var measured = Posture.unknown
    /// The machine's tablet-mode switch (`nil`: none, or not read yet).
    public var tabletMode: Bool?

    public init(tabletMode: Bool? = nil) {
        self.tabletMode = tabletMode
    }

    /// The state after one input to `detector`, which returned `event`, from `previous`; and
    /// whether it is to be published.
    public mutating func next(after event: PostureEvent?, detector: PostureDetector, previous: PostureState) -> (state: PostureState, publish: Bool) {
        var state = previous
        state.present = true
        if let event {
            measured = event.posture
            state.hingeAngle = event.hingeAngle
        } else {
            state.hingeAngle = state.posture == .unknown ? nil : detector.hingeAngle
        }
        state.hold = detector.hold
        state.heldFor = detector.holdSince.map { since in max(0, (detector.lastInputTime ?? since) - since) }
        state.posture = TabletModeSwitchRule.posture(measured: measured, tabletMode: tabletMode, lidClosed: detector.lidClosed)
        if measured == .unknown && state.posture != .unknown {
            state.hold = nil
            state.heldFor = nil
        }
        let publish = event != nil || state.posture != previous.posture || (state.posture == .unknown && state.hold != previous.hold)
        return (state, publish)
    }
}
