/// What a convertible's posture service says at one moment: the value behind the `posture`
/// wire message (docs/PROTOCOL.md) and, later, the daemon's state.
///
/// - `present`: whether the machine has what posture needs (an accelerometer in the display and
///   one in the base); `false` on everything else, and then the rest is `unknown`/`nil`.
/// - `posture`: the published ``Posture``.
/// - `hingeAngle`: degrees within 0…360: the hinge angle the detector believes at the last
///   reading (issue 40: `get` follows a moving hinge); in a change's event, the angle it was
///   decided at. `nil` while the posture is unknown or there is no angle.
/// - `hold`: why the posture is currently being held (``PostureDetector/hold``), or `nil`.
/// - `heldFor`: for how long (seconds, the readings' clock, up to the last reading) the posture
///   has been held without a decision (issue 38), or `nil` while it is not held.
public struct PostureState: Hashable, Sendable {
    public var present: Bool
    public var posture: Posture
    public var hingeAngle: Double?
    public var hold: PostureHold?
    public var heldFor: Double?

    public init(present: Bool = false, posture: Posture = .unknown, hingeAngle: Double? = nil, hold: PostureHold? = nil,
                heldFor: Double? = nil) {
        self.present = present
        self.posture = posture
        self.hingeAngle = hingeAngle
        self.hold = hold
        self.heldFor = heldFor
    }
}
