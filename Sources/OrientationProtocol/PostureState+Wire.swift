import OrientationCore
import PostureCore

extension PostureState {
    /// The wire members (besides `type`): `present`, `posture` (a ``Posture`` name), `hinge`
    /// (degrees 0…360, or `null`), `hold` (a ``PostureHold`` name, or `null`) and `held_for`
    /// (seconds the posture has been held, or `null`).
    public var members: [(String, JSONValue)] {
        [("present", .bool(present)), ("posture", .string(posture.rawValue)),
         ("hinge", hingeAngle.map { .number($0) } ?? .null), ("hold", hold.map { .string($0.rawValue) } ?? .null),
         ("held_for", heldFor.map { .number($0) } ?? .null)]
    }

    /// Reads the members of a `posture` message, tolerantly as a client must: a missing or
    /// unknown posture name (a newer server's) is `unknown`, a hinge angle that is not a number
    /// within 0…360 is none, an unknown hold reason is none, a `held_for` that is not a finite
    /// number of 0 or more (or missing: an older server's) is none.
    public init(members value: JSONValue) {
        let hinge = value["hinge"]?.numberValue
        let held = value["held_for"]?.numberValue
        self.init(present: value["present"]?.boolValue ?? false,
                  posture: value["posture"]?.stringValue.flatMap(Posture.init(rawValue:)) ?? .unknown,
                  hingeAngle: hinge.flatMap { $0 >= 0 && $0 <= 360 ? $0 : nil },
                  hold: value["hold"]?.stringValue.flatMap(PostureHold.init(rawValue:)),
                  heldFor: held.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil })
    }
}
