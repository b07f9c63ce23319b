import OrientationCore
import PostureCore
import Testing

/// A convertible's own tablet-mode switch beside (or instead of) a measured hinge angle (issue 39).
@Suite struct TabletModeSwitchRuleTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let measured: Posture
        let tabletMode: Bool?
        let lid: Bool?
        let expected: Posture
        var testDescription: String { "\(measured), switch \(tabletMode.map { $0 ? "on" : "off" } ?? "none"), lid \(lid.map { $0 ? "shut" : "open" } ?? "none")" }
    }

    static let cases: [Case] = [
        // One accelerometer and the firmware's switch: the switch alone decides.
        Case(measured: .unknown, tabletMode: true, lid: nil, expected: .tablet),
        Case(measured: .unknown, tabletMode: false, lid: nil, expected: .laptop),
        Case(measured: .unknown, tabletMode: false, lid: false, expected: .laptop),
        Case(measured: .unknown, tabletMode: false, lid: true, expected: .closed),
        // Beside a measured angle: the angle says which folded (or open) posture.
        Case(measured: .tent, tabletMode: true, lid: false, expected: .tent),
        Case(measured: .stand, tabletMode: true, lid: nil, expected: .stand),
        Case(measured: .flat, tabletMode: false, lid: false, expected: .flat),
        // An angle the switch contradicts: the switch wins.
        Case(measured: .laptop, tabletMode: true, lid: false, expected: .tablet),
        Case(measured: .tent, tabletMode: false, lid: false, expected: .laptop),
        // No switch: what was measured.
        Case(measured: .tent, tabletMode: nil, lid: false, expected: .tent),
        Case(measured: .unknown, tabletMode: nil, lid: nil, expected: .unknown),
    ]

    @Test(arguments: cases) func theSwitchSaysFoldedOrNotAndTheAngleWhich(_ c: Case) {
        #expect(TabletModeSwitchRule.posture(measured: c.measured, tabletMode: c.tabletMode, lidClosed: c.lid) == c.expected)
    }
}
