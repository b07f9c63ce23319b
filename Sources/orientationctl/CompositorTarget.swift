import OrientationCore

/// `follow --for`'s compositor and output, resolved at start: runs the compositor's commands
/// (``Compositor``) through ``ExternalCommand``. A command that fails is said on standard error
/// with its status and what it printed nothing else changes: the next rotation tries again.
struct CompositorTarget: Sendable {
    let compositor: Compositor
    let output: CompositorOutput
    let natural: PanelNaturalOrientation

    /// Maps touch and pens to the output, once, where the compositor keeps that mapping.
    func setUp() async {
        for command in compositor.setupCommands(output: output.name) { await Self.run(command) }
    }

    /// Shows content turned `rotation` degrees clockwise on the output, touch and pens turned with it.
    func rotate(to rotation: Int) async {
        var current: CompositorOutput? = output
        if compositor == .hyprland {
            // Hyprland's monitor rule restates mode, position and scale: today's, not the start's.
            let listed = await ExternalCommand.run(compositor.outputsCommand, captureOutput: true)
            current = (try? CompositorOutput.parse(listed.output, for: compositor))?.first { $0.name == output.name } ?? output
        }
        for command in compositor.rotationCommands(output: output.name, rotation: rotation, current: current) { await Self.run(command) }
        guard compositor == .x11 else { return }
        // X11 keeps no mapping: every touchscreen and pen gets the output's new matrix.
        let devices = await ExternalCommand.run(["xinput", "list", "--long"], captureOutput: true)
        guard devices.status == 0 else {
            return printError("orientationctl: `xinput list --long` exited with status \(devices.status): touch and pens not mapped")
        }
        for id in XInputDevices.touchAndPen(in: devices.output) { await Self.run(["xinput", "map-to-output", "\(id)", output.name]) }
    }

    private static func run(_ command: [String]) async {
        let result = await ExternalCommand.run(command, captureOutput: true)
        if result.status != 0 {
            let said = result.output.split(separator: "\n").prefix(3).joined(separator: " ")
            printError("orientationctl: `\(command.joined(separator: " "))` exited with status \(result.status)\(said.isEmpty ? "" : ": \(said)")")
        }
    }
}
