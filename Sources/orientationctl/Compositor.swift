/// `orientationctl follow --for COMPOSITOR [OUTPUT]`: auto-rotation, touch and pen included, for
/// compositors without one of their own (issue 39). Each preset says how to list the outputs
/// (to find the built-in panel and its natural shape), what to run once (map touch and pens to
/// the output, where the compositor keeps that mapping across rotations), and what to run at
/// each rotation. Commands are argument lists, never shell text: an output's name reaches no shell.
///
/// | compositor | output | touch and pen |
/// |---|---|---|
/// | sway | `swaymsg output OUT transform normal/90/180/270` (clockwise) | `input type:touch` and `type:tablet_tool` `map_to_output OUT` once: sway turns them with the output |
/// | Hyprland | `hyprctl keyword monitor OUT,WxH@Hz,XxY,SCALE,transform,T` (its current mode, position and scale kept; `T` the wl_output transform) | `input:touchdevice:output` and `input:tablet:output` once, `input:touchdevice:transform` and `input:tablet:transform` `T` at each rotation |
/// | niri | `niri msg output OUT transform normal/90/180/270` (counter-clockwise) | `map-to-output` in niri's own config (`input { touch { map-to-output "OUT"; } }`): niri turns them with the output |
/// | X11 | `xrandr --output OUT --rotate normal/right/inverted/left` | `xinput map-to-output ID OUT` for every touch and pen device (`xinput list --long`), after each rotation |
enum Compositor: String, CaseIterable, Sendable {
    case sway
    case hyprland
    case niri
    case x11

    /// The command that lists the outputs (``CompositorOutput/parse(_:for:)`` reads its output).
    var outputsCommand: [String] {
        switch self {
        case .sway: ["swaymsg", "-t", "get_outputs", "-r"]
        case .hyprland: ["hyprctl", "monitors", "-j"]
        case .niri: ["niri", "msg", "--json", "outputs"]
        case .x11: ["xrandr", "--query"]
        }
    }

    /// What runs once, before the first rotation: touch and pens mapped to `output`.
    func setupCommands(output: String) -> [[String]] {
        switch self {
        case .sway:
            [["swaymsg", "input", "type:touch", "map_to_output", output], ["swaymsg", "input", "type:tablet_tool", "map_to_output", output]]
        case .hyprland:
            [["hyprctl", "keyword", "input:touchdevice:output", output], ["hyprctl", "keyword", "input:tablet:output", output]]
        case .niri, .x11:
            []
        }
    }

    /// What runs to show content turned `rotation` degrees clockwise on `output` (its current
    /// mode, position and scale from `current`, where the compositor needs them restated).
    func rotationCommands(output: String, rotation: Int, current: CompositorOutput?) -> [[String]] {
        let quarter = ((rotation / 90) % 4 + 4) % 4
        let wlTransform = (4 - quarter) % 4
        switch self {
        case .sway:
            return [["swaymsg", "output", output, "transform", quarter == 0 ? "normal" : "\(quarter * 90)"]]
        case .hyprland:
            var rule = "\(output),preferred,auto,1"
            if let current, let refresh = current.refresh, let x = current.x, let y = current.y, let scale = current.scale {
                rule = "\(output),\(current.width)x\(current.height)@\(Self.decimal(refresh)),\(x)x\(y),\(Self.decimal(scale))"
            }
            return [["hyprctl", "keyword", "monitor", "\(rule),transform,\(wlTransform)"],
                    ["hyprctl", "keyword", "input:touchdevice:transform", "\(wlTransform)"],
                    ["hyprctl", "keyword", "input:tablet:transform", "\(wlTransform)"]]
        case .niri:
            return [["niri", "msg", "output", output, "transform", wlTransform == 0 ? "normal" : "\(wlTransform * 90)"]]
        case .x11:
            return [["xrandr", "--output", output, "--rotate", ["normal", "right", "inverted", "left"][quarter]]]
        }
    }

    /// A number as a compositor's configuration writes it: no trailing `.0`.
    static func decimal(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? "\(Int(value))" : "\(value)"
    }
}
