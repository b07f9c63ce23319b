import OrientationCore
import PostureCore
import Testing

/// Issue 30, item 4: a client's rule per posture on top of iOS's rules.
@Suite struct PostureRotationRulesTests {
    @Test func theDefaultsHoldALaptopAndLetATentTurnUpsideDown() {
        let rules = PostureRotationRules.defaults
        #expect(rules.rule(for: .laptop) == .hold && rules.rule(for: .closed) == .hold)
        #expect(rules.rule(for: .tent) == .only(.all))
        #expect(rules.rule(for: .tablet) == .follow && rules.rule(for: .unknown) == .follow)
        #expect(rules.description == "closed=hold laptop=hold tent=all")
    }

    static let parsing: [(String, Posture?, PostureRotationRules.Rule?, String?)] = [
        ("laptop=follow", .laptop, .follow, nil),
        ("stand = landscape", .stand, .only(.landscape), nil),
        ("tablet=portrait,portrait-upside-down", .tablet, .only([.portrait, .portraitUpsideDown]), nil),
        ("flat=hold", .flat, .hold, nil),
        ("unknown=hold", nil, nil, "posture rule \"unknown=hold\": expected POSTURE=RULE with a posture among closed, laptop, flat, tent, stand, tablet"),
        ("laptop", nil, nil, "posture rule \"laptop\": expected POSTURE=RULE"),
        ("desk=hold", nil, nil, "posture rule \"desk=hold\": expected POSTURE=RULE"),
        ("tent=sideways", nil, nil, "posture rule \"tent=sideways\": the rule must be follow, hold or orientations (unknown orientation \"sideways\""),
    ]

    @Test(arguments: parsing.indices)
    func parsesOneRule(_ index: Int) {
        let (text, posture, rule, error) = Self.parsing[index]
        var rules = PostureRotationRules.defaults
        do {
            try rules.set(parsing: text)
            #expect(error == nil, "\(text) was accepted")
            if let posture { #expect(rules.rule(for: posture) == rule) }
        } catch {
            #expect(error.description.hasPrefix(Self.parsing[index].3 ?? "—"), "\(error)")
        }
    }

    /// A laptop tipped on the desk: the interface holds; folded into a tent it turns upside down
    /// even though the app does not support that otherwise; as a tablet it follows the app's mask.
    @Test func aConvertibleMovesThroughItsPostures() throws {
        let app = InterfaceOrientationMask.allButUpsideDown
        var policy = try RotationPolicy(app: app)
        let rules = PostureRotationRules.defaults
        policy.update(device: .landscapeLeft, locked: false)
        let start = policy.interfaceOrientation
        try policy.apply(rules.rule(for: .laptop), app: app)
        policy.update(device: .portrait, locked: false)
        #expect(policy.interfaceOrientation == start, "a laptop holds")
        try policy.apply(rules.rule(for: .tent), app: app)
        policy.update(device: .portraitUpsideDown, locked: false)
        #expect(policy.interfaceOrientation == .portraitUpsideDown, "a tent may turn upside down")
        try policy.apply(rules.rule(for: .tablet), app: app)
        #expect(policy.interfaceOrientation != .portraitUpsideDown, "back to the app's mask as a tablet")
        policy.update(device: .landscapeRight, locked: false)
        #expect(policy.interfaceOrientation == InterfaceOrientation(device: .landscapeRight))
        // The system lock still wins in every posture.
        policy.update(device: .portrait, locked: true)
        #expect(policy.interfaceOrientation == InterfaceOrientation(device: .landscapeRight))
    }

    @Test func aPostureMaskOutsideTheWindowIsRefusedAndChangesNothing() throws {
        var policy = try RotationPolicy(app: .all, window: .landscape)
        let before = policy
        #expect(throws: RotationPolicyError.self) { try policy.apply(.only(.portrait), app: .all) }
        #expect(policy == before)
    }
}
