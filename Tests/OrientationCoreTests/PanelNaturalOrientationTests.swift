import OrientationCore
import Testing

/// What "portrait" and "landscape" mean on a panel wider than tall (issue 39, item 2).
@Suite struct PanelNaturalOrientationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let device: DeviceOrientation
        /// The interface a `.all` policy takes, and the clockwise content rotation the panel needs.
        let interface: InterfaceOrientation
        let rotation: Int
        var testDescription: String { "\(device)" }
    }

    /// A landscape panel: as it sits, a quarter counter-clockwise (right edge up), upside down,
    /// a quarter clockwise.
    static let landscape: [Case] = [
        Case(device: .portrait, interface: .landscapeRight, rotation: 0),
        Case(device: .landscapeLeft, interface: .portraitUpsideDown, rotation: 90),
        Case(device: .portraitUpsideDown, interface: .landscapeLeft, rotation: 180),
        Case(device: .landscapeRight, interface: .portrait, rotation: 270),
    ]

    @Test(arguments: landscape) func aLandscapePanelIsReadAQuarterTurnRound(_ c: Case) throws {
        var policy = try RotationPolicy()
        policy.update(device: PanelNaturalOrientation.landscape.portraitNativeEquivalent(of: c.device), locked: false)
        #expect(policy.interfaceOrientation == c.interface)
        #expect(PanelNaturalOrientation.landscape.panelRotation(for: c.interface) == c.rotation)
        // The content turns the same on a portrait panel in the same pose: only the names differ.
        var native = try RotationPolicy()
        native.update(device: c.device, locked: false)
        #expect(PanelNaturalOrientation.portrait.panelRotation(for: native.interfaceOrientation) == c.rotation)
    }

    @Test func flatAndUnknownStayAsTheyAre() {
        for device in [DeviceOrientation.faceUp, .faceDown, .unknown] {
            #expect(PanelNaturalOrientation.landscape.portraitNativeEquivalent(of: device) == device)
        }
        #expect(PanelNaturalOrientation(width: 1920, height: 1080) == .landscape)
        #expect(PanelNaturalOrientation(width: 1200, height: 1920) == .portrait)
    }

    /// `--supported landscape` on a laptop that sits normally: no rotation.
    @Test func landscapeOnlyNeverTurnsALaptopThatSitsNormally() throws {
        var policy = try RotationPolicy(app: .landscape)
        policy.update(device: PanelNaturalOrientation.landscape.portraitNativeEquivalent(of: .portrait), locked: false)
        #expect(PanelNaturalOrientation.landscape.panelRotation(for: policy.interfaceOrientation) == 0)
    }
}
