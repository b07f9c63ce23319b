import OrientationCore
import OrientationProtocol

/// One output a compositor lists: its name and its mode's size as made (unrotated), with what
/// Hyprland needs restated when it rotates one.
struct CompositorOutput: Equatable, Sendable {
    var name: String
    var width: Int
    var height: Int
    var refresh: Double? = nil
    var x: Int? = nil
    var y: Int? = nil
    var scale: Double? = nil

    /// The panel's shape as made.
    var natural: PanelNaturalOrientation { PanelNaturalOrientation(width: width, height: height) }

    /// Whether the name is a built-in panel's (eDP, LVDS, DSI: a laptop's or tablet's own screen).
    var isBuiltIn: Bool { ["eDP", "LVDS", "DSI"].contains { name.hasPrefix($0) } }

    /// The output `follow --for` turns when none is named: the built-in panel, else the only one.
    static func builtIn(_ outputs: [CompositorOutput]) -> CompositorOutput? {
        outputs.first(where: \.isBuiltIn) ?? (outputs.count == 1 ? outputs[0] : nil)
    }

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    /// The outputs in `text`, the output of `compositor.outputsCommand`.
    static func parse(_ text: String, for compositor: Compositor) throws(ParseError) -> [CompositorOutput] {
        if compositor == .x11 { return parseXrandr(text) }
        let json: JSONValue
        do { json = try JSONReader.parse(text) } catch { throw ParseError(description: "\(compositor.outputsCommand.joined(separator: " ")): \(error)") }
        func int(_ value: JSONValue?) -> Int? { value?.numberValue.map { Int($0) } }
        var outputs: [CompositorOutput] = []
        switch compositor {
        case .sway:
            // [{"name": "eDP-1", "active": true, "current_mode": {"width": 1920, "height": 1080, ...}, ...}]
            guard case .array(let items) = json else { throw ParseError(description: "swaymsg -t get_outputs: not a list of outputs") }
            for item in items {
                guard let name = item["name"]?.stringValue, let mode = item["current_mode"],
                      let width = int(mode["width"]), let height = int(mode["height"]) else { continue }
                outputs.append(CompositorOutput(name: name, width: width, height: height))
            }
        case .hyprland:
            // [{"name": "eDP-1", "width": 1920, "height": 1080, "refreshRate": 60.0, "x": 0, "y": 0, "scale": 1.25, ...}]
            guard case .array(let items) = json else { throw ParseError(description: "hyprctl monitors -j: not a list of monitors") }
            for item in items {
                guard let name = item["name"]?.stringValue, let width = int(item["width"]), let height = int(item["height"]) else { continue }
                outputs.append(CompositorOutput(name: name, width: width, height: height, refresh: item["refreshRate"]?.numberValue,
                                                x: int(item["x"]), y: int(item["y"]), scale: item["scale"]?.numberValue))
            }
        case .niri:
            // {"eDP-1": {"name": "eDP-1", "modes": [{"width": 1920, "height": 1080, ...}], "current_mode": 0, ...}}
            guard case .object(let members) = json else { throw ParseError(description: "niri msg --json outputs: not an object of outputs") }
            for (key, item) in members {
                guard case .array(let modes)? = item["modes"], let index = int(item["current_mode"]), modes.indices.contains(index),
                      let width = int(modes[index]["width"]), let height = int(modes[index]["height"]) else { continue }
                outputs.append(CompositorOutput(name: item["name"]?.stringValue ?? key, width: width, height: height))
            }
        case .x11:
            break
        }
        return outputs
    }

    /// `xrandr --query`: a connected output's line, then its modes indented, the current one
    /// marked `*` (else the preferred, `+`); the modes are as made, whatever the rotation.
    static func parseXrandr(_ text: String) -> [CompositorOutput] {
        var outputs: [CompositorOutput] = []
        var name: String? = nil
        var preferred: (Int, Int)? = nil
        func finish() {
            if let name, let preferred { outputs.append(CompositorOutput(name: name, width: preferred.0, height: preferred.1)) }
            name = nil
            preferred = nil
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if !line.hasPrefix(" ") {
                finish()
                let words = line.split(separator: " ")
                if words.count >= 2, words[1] == "connected" { name = String(words[0]) }
                continue
            }
            guard name != nil else { continue }
            let words = line.split(separator: " ")
            guard let mode = words.first else { continue }
            let size = mode.split(separator: "x")
            guard size.count == 2, let width = Int(size[0]), let height = Int(size[1].prefix { $0.isNumber }) else { continue }
            let flags = words.dropFirst().joined()
            if flags.contains("*") {
                preferred = (width, height)
            } else if flags.contains("+"), preferred == nil {
                preferred = (width, height)
            }
        }
        finish()
        return outputs
    }
}
