import OrientationCore
import Testing

@Suite struct RotationPolicyTests {
    @Test func mapsDeviceToInterfaceAsUIKitDoes() {
        #expect(InterfaceOrientation(device: .portrait) == .portrait)
        #expect(InterfaceOrientation(device: .landscapeLeft) == .landscapeRight)
        #expect(InterfaceOrientation(device: .landscapeRight) == .landscapeLeft)
        #expect(InterfaceOrientation(device: .portraitUpsideDown) == .portraitUpsideDown)
        for flat in [DeviceOrientation.faceUp, .faceDown, .unknown] { #expect(InterfaceOrientation(device: flat) == nil) }
        for o in InterfaceOrientation.allCases { #expect(InterfaceOrientation(device: o.deviceOrientation) == o) }
        // Content rotation, clockwise: device landscape-left (interface landscape-right) is 90.
        #expect(InterfaceOrientation(device: .landscapeLeft)?.rotationDegrees == 90)
        #expect(InterfaceOrientation(device: .landscapeRight)?.rotationDegrees == 270)
        #expect(InterfaceOrientation.portraitUpsideDown.rotationDegrees == 180)
    }

    struct Step: Sendable {
        var device: DeviceOrientation
        var locked = false
        var expected: InterfaceOrientation
    }

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var app: InterfaceOrientationMask = .all
        var window: InterfaceOrientationMask = .all
        var autorotate = true
        var preferred: InterfaceOrientation? = nil
        var start: InterfaceOrientation
        var steps: [Step]
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "follows the device", start: .portrait, steps: [
            Step(device: .landscapeLeft, expected: .landscapeRight),
            Step(device: .portraitUpsideDown, expected: .portraitUpsideDown),
            Step(device: .landscapeRight, expected: .landscapeLeft),
        ]),
        Case(name: "face-up, face-down and unknown keep the orientation", start: .portrait, steps: [
            Step(device: .landscapeLeft, expected: .landscapeRight),
            Step(device: .faceUp, expected: .landscapeRight),
            Step(device: .faceDown, expected: .landscapeRight),
            Step(device: .unknown, expected: .landscapeRight),
        ]),
        Case(name: "unsupported device orientations are ignored (iPhone mask)", app: .allButUpsideDown, start: .portrait, steps: [
            Step(device: .portraitUpsideDown, expected: .portrait),
            Step(device: .landscapeRight, expected: .landscapeLeft),
            Step(device: .portraitUpsideDown, expected: .landscapeLeft),
        ]),
        Case(name: "app and window masks intersect", app: .all, window: .landscape, start: .landscapeRight, steps: [
            Step(device: .portrait, expected: .landscapeRight),
            Step(device: .landscapeRight, expected: .landscapeLeft),
        ]),
        Case(name: "the system lock keeps the orientation; unlocking follows the device", start: .portrait, steps: [
            Step(device: .portrait, locked: true, expected: .portrait),
            Step(device: .landscapeLeft, locked: true, expected: .portrait),
            Step(device: .landscapeLeft, locked: false, expected: .landscapeRight),
        ]),
        Case(name: "shouldAutorotate false keeps the orientation", autorotate: false, start: .portrait, steps: [
            Step(device: .landscapeLeft, expected: .portrait),
        ]),
        Case(name: "preferred orientation comes first", preferred: .landscapeLeft, start: .landscapeLeft, steps: [
            Step(device: .faceUp, expected: .landscapeLeft),
            Step(device: .portrait, expected: .portrait),
        ]),
    ]

    @Test(arguments: cases)
    func appliesTheIOSRules(_ c: Case) throws {
        var policy = try RotationPolicy(app: c.app, window: c.window, shouldAutorotate: c.autorotate, preferred: c.preferred)
        #expect(policy.interfaceOrientation == c.start)
        for step in c.steps {
            let before = policy.interfaceOrientation
            let changed = policy.update(device: step.device, locked: step.locked)
            #expect(policy.interfaceOrientation == step.expected, "after \(step.device) locked=\(step.locked)")
            #expect(changed == (before == step.expected ? nil : step.expected))
        }
    }

    @Test func enablingAutorotationFollowsTheDeviceAtOnce() throws {
        var policy = try RotationPolicy(shouldAutorotate: false)
        policy.update(device: .landscapeRight, locked: false)
        #expect(policy.interfaceOrientation == .portrait)
        #expect(policy.setShouldAutorotate(true) == .landscapeLeft)
    }

    @Test func aMaskChangeLeavingTheCurrentOrientationMoves() throws {
        var policy = try RotationPolicy()
        policy.update(device: .faceUp, locked: true)
        #expect(try policy.setSupported(app: .all, window: .landscape) == .landscapeRight)
    }

    @Test func impossiblePoliciesAreErrors() {
        #expect(throws: RotationPolicyError.noCommonOrientation(app: .portrait, window: .landscape)) {
            try RotationPolicy(app: .portrait, window: .landscape)
        }
        #expect(throws: RotationPolicyError.preferredNotSupported(.portraitUpsideDown, supported: .allButUpsideDown)) {
            try RotationPolicy(app: .allButUpsideDown, preferred: .portraitUpsideDown)
        }
        #expect(RotationPolicyError.noCommonOrientation(app: .portrait, window: .landscape).description
                == "no interface orientation is supported by both the app (portrait) and the window (landscape-right,landscape-left)")
    }

    @Test func masksParseNamesAndGroups() throws {
        #expect(try InterfaceOrientationMask(parsing: "portrait, landscape-left") == [.portrait, .landscapeLeft])
        #expect(try InterfaceOrientationMask(parsing: "all-but-upside-down") == .allButUpsideDown)
        #expect(try InterfaceOrientationMask(parsing: "landscape") == .landscape)
        #expect(throws: RotationPolicyError.self) { try InterfaceOrientationMask(parsing: "sideways") }
        #expect(throws: RotationPolicyError.emptyMask(",")) { try InterfaceOrientationMask(parsing: ",") }
    }
}
