import OrientationCore
@testable import orientationctl
import Testing

/// `follow --for` (issue 39): what each compositor is told, and how its outputs are read. The
/// sway listing is Debian's sway 1.7 (headless) as it printed it, trimmed to the members read;
/// the others follow each program's documented output (no such compositor runs here).
@Suite struct CompositorPresetTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let compositor: Compositor
        let rotation: Int
        let commands: [[String]]
        var testDescription: String { "\(compositor.rawValue) \(rotation)°" }
    }

    static let hyprlandMonitor = CompositorOutput(name: "eDP-1", width: 2880, height: 1800, refresh: 90.001, x: 0, y: 0, scale: 1.5)

    static let cases: [Case] = [
        Case(compositor: .sway, rotation: 0, commands: [["swaymsg", "output", "eDP-1", "transform", "normal"]]),
        Case(compositor: .sway, rotation: 90, commands: [["swaymsg", "output", "eDP-1", "transform", "90"]]),
        Case(compositor: .sway, rotation: 270, commands: [["swaymsg", "output", "eDP-1", "transform", "270"]]),
        // niri turns counter-clockwise: content a quarter clockwise is its 270.
        Case(compositor: .niri, rotation: 90, commands: [["niri", "msg", "output", "eDP-1", "transform", "270"]]),
        Case(compositor: .niri, rotation: 180, commands: [["niri", "msg", "output", "eDP-1", "transform", "180"]]),
        Case(compositor: .niri, rotation: 0, commands: [["niri", "msg", "output", "eDP-1", "transform", "normal"]]),
        Case(compositor: .x11, rotation: 90, commands: [["xrandr", "--output", "eDP-1", "--rotate", "right"]]),
        Case(compositor: .x11, rotation: 270, commands: [["xrandr", "--output", "eDP-1", "--rotate", "left"]]),
        // Hyprland: the wl_output transform (a quarter clockwise is 3), its mode, position and
        // scale restated, touch and pens turned alike.
        Case(compositor: .hyprland, rotation: 90, commands: [
            ["hyprctl", "keyword", "monitor", "eDP-1,2880x1800@90.001,0x0,1.5,transform,3"],
            ["hyprctl", "keyword", "input:touchdevice:transform", "3"], ["hyprctl", "keyword", "input:tablet:transform", "3"],
        ]),
        Case(compositor: .hyprland, rotation: 180, commands: [
            ["hyprctl", "keyword", "monitor", "eDP-1,2880x1800@90.001,0x0,1.5,transform,2"],
            ["hyprctl", "keyword", "input:touchdevice:transform", "2"], ["hyprctl", "keyword", "input:tablet:transform", "2"],
        ]),
    ]

    @Test(arguments: cases) func eachCompositorIsToldItsOwnWay(_ c: Case) {
        #expect(c.compositor.rotationCommands(output: "eDP-1", rotation: c.rotation, current: Self.hyprlandMonitor) == c.commands)
    }

    @Test func touchAndPensAreMappedOnceWhereTheCompositorKeepsIt() {
        #expect(Compositor.sway.setupCommands(output: "eDP-1") == [
            ["swaymsg", "input", "type:touch", "map_to_output", "eDP-1"], ["swaymsg", "input", "type:tablet_tool", "map_to_output", "eDP-1"],
        ])
        #expect(Compositor.hyprland.setupCommands(output: "eDP-1").count == 2)
        #expect(Compositor.niri.setupCommands(output: "eDP-1").isEmpty && Compositor.x11.setupCommands(output: "eDP-1").isEmpty)
        // An output name with shell characters stays one argument.
        #expect(Compositor.sway.rotationCommands(output: "eDP-1; rm -rf ~", rotation: 0, current: nil)[0][2] == "eDP-1; rm -rf ~")
    }

    @Test func swaysOutputsAreReadFromItsJSON() throws {
        let text = #"[{"name": "HEADLESS-1", "make": "headless", "model": "headless", "active": true, "current_mode": {"width": 1280, "height": 720, "refresh": 60000}, "transform": "90", "scale": 1.0}, {"name": "eDP-1", "active": true, "current_mode": {"width": 1800, "height": 2880, "refresh": 60000}, "transform": "normal"}]"#
        let outputs = try CompositorOutput.parse(text, for: .sway)
        #expect(outputs.map(\.name) == ["HEADLESS-1", "eDP-1"])
        // The mode as made, whatever the transform: a landscape panel turned is still landscape.
        #expect(outputs[0].natural == .landscape && outputs[1].natural == .portrait)
        #expect(CompositorOutput.builtIn(outputs)?.name == "eDP-1")
    }

    @Test func hyprlandsAndNirisOutputsAreReadFromTheirJSON() throws {
        let hyprland = #"[{"id": 0, "name": "eDP-1", "description": "BOE 0x0BCA", "width": 2880, "height": 1800, "refreshRate": 90.00100, "x": 0, "y": 0, "scale": 1.50, "transform": 0}]"#
        #expect(try CompositorOutput.parse(hyprland, for: .hyprland) == [Self.hyprlandMonitor])
        let niri = #"{"eDP-1": {"name": "eDP-1", "make": "BOE", "modes": [{"width": 1920, "height": 1200, "refresh_rate": 60000, "is_preferred": true}, {"width": 1280, "height": 800, "refresh_rate": 60000, "is_preferred": false}], "current_mode": 1, "logical": {"x": 0, "y": 0, "width": 800, "height": 1280, "scale": 1.0, "transform": "90"}}}"#
        #expect(try CompositorOutput.parse(niri, for: .niri) == [CompositorOutput(name: "eDP-1", width: 1280, height: 800)])
        #expect(throws: CompositorOutput.ParseError.self) { try CompositorOutput.parse("no JSON", for: .sway) }
    }

    @Test func xrandrsOutputsAreItsConnectedOnesAtTheirCurrentMode() {
        let text = """
            Screen 0: minimum 320 x 200, current 1080 x 1920, maximum 16384 x 16384
            eDP-1 connected primary 1080x1920+0+0 left (normal left inverted right x axis y axis) 294mm x 165mm
               1920x1080     60.02*+  59.93
               1680x1050     59.95
            HDMI-1 disconnected (normal left inverted right x axis y axis)
            DP-1 connected 2560x1440+1080+0 (normal left inverted right x axis y axis) 597mm x 336mm
               2560x1440     59.95 +
               1920x1080     60.00*
            """
        let outputs = CompositorOutput.parseXrandr(text)
        #expect(outputs == [CompositorOutput(name: "eDP-1", width: 1920, height: 1080), CompositorOutput(name: "DP-1", width: 1920, height: 1080)])
        #expect(CompositorOutput.builtIn(outputs)?.name == "eDP-1")
        #expect(CompositorOutput.builtIn([CompositorOutput(name: "DP-1", width: 1, height: 1), CompositorOutput(name: "DP-2", width: 1, height: 1)]) == nil)
    }

    @Test func xinputsTouchscreensAndPensAreMappedNotItsMiceOrKeyboards() {
        let text = """
            ⎡ Virtual core pointer                    \tid=2\t[master pointer  (3)]
            \tReporting 3 classes:
            \t\tClass originated from: 11. Type: XIButtonClass
            ⎜   ↳ ELAN9008:00 04F3:2C82                   \tid=11\t[slave  pointer  (2)]
            \tReporting 5 classes:
            \t\tClass originated from: 11. Type: XITouchClass
            \t\t  Touch mode: direct
            ⎜   ↳ ELAN9008:00 04F3:2C82 Stylus Pen (0)    \tid=12\t[slave  pointer  (2)]
            \t\tClass originated from: 12. Type: XIValuatorClass
            \t\t  Detail for Valuator 2:
            \t\t    Label: Abs Pressure
            ⎜   ↳ SYNA2393:00 06CB:7A13 Touchpad          \tid=13\t[slave  pointer  (2)]
            \t\tClass originated from: 13. Type: XIValuatorClass
            \t\t    Label: Rel X
            ⎣ Virtual core keyboard                   \tid=3\t[master keyboard (2)]
            \t\tClass originated from: 3. Type: XIKeyClass
            """
        #expect(XInputDevices.touchAndPen(in: text) == [11, 12])
    }
}
