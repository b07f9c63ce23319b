/// What a convertible's posture service says at one moment: the value behind the `posture`
/// wire message (docs/PROTOCOL.md) and, later, the daemon's state.
///
/// - `present`: whether the machine has what posture needs (an accelerometer in the display and
///   one in the base); `false` on everything else, and then the rest is `unknown`/`nil`.
/// - `posture`: the published ``Posture``.
/// - `hingeAngle`: degrees within 0…360 the posture was decided at (``PostureEvent/hingeAngle``),
///   or `nil`.
/// - `hold`: why the posture is currently being held (``PostureDetector/hold``), or `nil`.
public struct PostureState: Hashable, Sendable {
    public var present: Bool
    public var posture: Posture
    public var hingeAngle: Double?
    public var hold: PostureHold?

    public init(present: Bool = false, posture: Posture = .unknown, hingeAngle: Double? = nil, hold: PostureHold? = nil) {
        self.present = present
        self.posture = posture
        self.hingeAngle = hingeAngle
        self.hold = hold
    }
}
