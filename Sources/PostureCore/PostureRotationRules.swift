import OrientationCore

/// What a client's interface does in each posture of a convertible (issue 30, item 4), on top of
/// its ``RotationPolicy``: a laptop's screen should not turn when the machine is tipped on the
/// desk, a tent's must be allowed upside down (the display hangs upside down with respect to its
/// hinge), and a tablet follows the policy as any tablet does.
///
/// Rules, per ``Posture``:
/// - `follow`: the policy as configured (its masks, its autorotation);
/// - `hold`: the interface keeps its orientation (autorotation off) while in this posture;
/// - a mask (`all`, `landscape`, `portrait,portrait-upside-down`, ...): the interface follows the
///   device among these orientations instead of the app's mask (still within the window's).
///
/// The defaults (``defaults``): `closed` and `laptop` hold, `tent` allows `all`, every other
/// posture follows; `unknown` (not a convertible, or posture not known yet) always follows, so a
/// machine without a base accelerometer rotates exactly as before.
public struct PostureRotationRules: Hashable, Sendable, CustomStringConvertible {
    public enum Rule: Hashable, Sendable, CustomStringConvertible {
        case follow
        case hold
        case only(InterfaceOrientationMask)

        public var description: String {
            switch self {
            case .follow: "follow"
            case .hold: "hold"
            case .only(let mask): InterfaceOrientationMask.groupNames.first { $0.1 == mask }?.0 ?? "\(mask)"
            }
        }
    }

    /// The rule of each posture that has one; a posture without one follows.
    public private(set) var rules: [Posture: Rule]

    /// The rules a desktop wants (above).
    public static let defaults = PostureRotationRules(rules: [.closed: .hold, .laptop: .hold, .tent: .only(.all)])

    public init(rules: [Posture: Rule] = [:]) {
        self.rules = rules
        self.rules[.unknown] = nil
    }

    /// The rule for `posture` (`follow` for ``Posture/unknown`` and for postures without one).
    public func rule(for posture: Posture) -> Rule {
        posture == .unknown ? .follow : rules[posture] ?? .follow
    }

    /// Sets one posture's rule from `POSTURE=RULE` (`laptop=hold`, `tent=all`,
    /// `stand=landscape`, `tablet=follow`).
    /// - Throws: ``RotationPolicyError`` naming what is wrong: an unknown posture (or `unknown`,
    ///   which always follows), or a rule that is neither `follow`, `hold` nor a mask.
    public mutating func set(parsing text: String) throws(RotationPolicyError) {
        let parts = text.split(separator: "=", maxSplits: 1).map { String($0).trimmingBlanks() }
        let postures = Posture.allCases.filter { $0 != .unknown }.map(\.rawValue)
        guard parts.count == 2, let posture = Posture(rawValue: parts[0]), posture != .unknown else {
            throw .invalidPostureRule(text, reason: "expected POSTURE=RULE with a posture among \(postures.joined(separator: ", "))")
        }
        switch parts[1] {
        case "follow": rules[posture] = .follow
        case "hold": rules[posture] = .hold
        default:
            do { rules[posture] = .only(try InterfaceOrientationMask(parsing: parts[1])) } catch {
                throw .invalidPostureRule(text, reason: "the rule must be follow, hold or orientations (\(error))")
            }
        }
    }

    /// `closed=hold laptop=hold tent=all`, postures in their declared order.
    public var description: String {
        Posture.allCases.compactMap { posture in rules[posture].map { "\(posture)=\($0)" } }.joined(separator: " ")
    }
}

extension RotationPolicy {
    /// Applies `rule` (a posture's, ``PostureRotationRules``) to this policy: `hold` turns
    /// autorotation off, `follow` restores `app` (the app's own mask) and autorotation, a mask
    /// replaces the app's mask. Returns the new interface orientation when it changed.
    /// - Throws: ``RotationPolicyError/noCommonOrientation(app:window:)`` when a posture's mask
    ///   and the window's do not overlap; the policy is then unchanged.
    @discardableResult
    public mutating func apply(_ rule: PostureRotationRules.Rule, app: InterfaceOrientationMask) throws(RotationPolicyError) -> InterfaceOrientation? {
        let before = interfaceOrientation
        switch rule {
        case .hold:
            setShouldAutorotate(false)
        case .follow:
            try setSupported(app: app, window: windowOrientations, preferred: preferredOrientation.flatMap { app.contains($0) ? $0 : nil })
            setShouldAutorotate(true)
        case .only(let mask):
            try setSupported(app: mask, window: windowOrientations, preferred: preferredOrientation.flatMap { mask.contains($0) ? $0 : nil })
            setShouldAutorotate(true)
        }
        return interfaceOrientation == before ? nil : interfaceOrientation
    }
}
