import ArgumentParser
import Glibc
import OrientationClient
import OrientationCore
import PostureCore

/// `orientationctl follow`: applies a RotationPolicy to the daemon's events and runs a command
/// whenever the decided interface orientation changes: auto-rotation in one line.
struct Follow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decide the interface orientation with iOS's rules and run a command whenever it changes.",
        discussion: """
        The command runs with /bin/sh -c and these variables:
          ORIENTATION_INTERFACE     portrait, landscape-right, landscape-left or
                                    portrait-upside-down (UIKit's names)
          ORIENTATION_ROTATION      clockwise content rotation in degrees: 0, 90,
                                    180, 270 (sway's `output … transform`)
          ORIENTATION_XRANDR        normal, right, inverted, left
                                    (`xrandr --rotate`; right = clockwise)
          ORIENTATION_WL_TRANSFORM  0–3, the wl_output transform (counter-clockwise
                                    quarter turns, as Hyprland's `transform`)
          ORIENTATION_DEVICE        the device orientation that caused it
          ORIENTATION_LOCKED        1 when the system rotation lock is set, else 0
          ORIENTATION_POSTURE       a convertible's posture (laptop, tent, tablet,
                                    ...), unknown on other machines
          ORIENTATION_OUTPUT        the output --for turns (with --for only)
        Nothing runs until the orientation is known: the first decision waits for the sensor to report \
        portrait, landscape or upside down (a device lying flat, or a sensor not yet heard from, keeps it waiting), \
        unless --preferred names the orientation to start in or the masks allow only one.
        On a convertible (an accelerometer in the display and one in the base) each posture has a rule: \
        follow the masks, hold the current orientation, or follow among other orientations. \
        The defaults: closed=hold laptop=hold tent=all (a tent's screen hangs upside down); \
        every other posture, and any machine that is not a convertible, follows. \
        --posture-rule changes one (laptop=follow, stand=landscape); --ignore-posture turns them off.
        Portrait and landscape name the shape you see. The daemon's orientations are the panel's own frame \
        (portrait = the panel as it sits, iio-sensor-proxy's normal), so on a panel that is wider than tall \
        (a laptop's, most 2-in-1s') the masks are read a quarter turn round: with --natural landscape the \
        panel as it sits is landscape-right (no rotation), turned a quarter clockwise portrait, counter-clockwise \
        portrait-upside-down, and --supported landscape never turns a laptop that sits normally. --for takes the \
        natural shape from the output's mode; without --for it is portrait unless --natural says otherwise.
        --for COMPOSITOR [OUTPUT] rotates OUTPUT (default: the built-in panel, eDP/LVDS/DSI) of a compositor \
        without auto-rotation of its own, touch and pen included, before any --exec command:
          sway      swaymsg output transform; touch and tablet tools map_to_output
                    (sway config: exec orientationctl follow --for sway eDP-1)
          hyprland  hyprctl keyword monitor ...,transform; input:touchdevice and
                    input:tablet output and transform (hyprland.conf:
                    exec-once = orientationctl follow --for hyprland eDP-1)
          niri      niri msg output transform; touch follows map-to-output in
                    niri's config (spawn-at-startup "orientationctl" "follow"
                    "--for" "niri" "eDP-1")
          x11       xrandr --rotate; xinput map-to-output for every touch and pen
                    (~/.xprofile: orientationctl follow --for x11 eDP-1 &)
        A systemd user unit does the same for a session: systemctl --user enable --now \
        orientationctl-follow@sway.service (hyprland, niri, x11).
        Example (sway):
          orientationctl follow --supported all-but-upside-down \\
              --exec 'swaymsg output eDP-1 transform $ORIENTATION_ROTATION'
        """
    )

    @OptionGroup var connection: ClientOptions

    @Option(help: "Supported interface orientations: names or groups (landscape, all, all-but-upside-down), comma-separated.")
    var supported: String = "all"

    @Option(help: "A second mask (a window's), intersected with --supported.")
    var window: String = "all"

    @Option(help: "The orientation to start in (must be supported).")
    var preferred: String?

    @Option(help: "Command to run on every change (see above).")
    var exec: String?

    @Option(name: .customLong("for"), parsing: .upToNextOption,
            help: ArgumentHelp("Rotate a compositor's output, touch and pen included: sway, hyprland, niri or x11, then the output (default: the built-in panel).",
                               valueName: "compositor [output]"))
    var target: [String] = []

    @Option(help: ArgumentHelp("The panel's shape as it sits: portrait or landscape (default: from --for's output, else portrait).", valueName: "shape"))
    var natural: String?

    @Option(name: .customLong("posture-rule"),
            help: "POSTURE=RULE: what the interface does in a convertible's posture (follow, hold, or orientations); repeatable.")
    var postureRules: [String] = []

    @Flag(help: "Do not follow a convertible's posture: rotate in every posture as the masks say.")
    var ignorePosture = false

    @Flag(help: "Print decisions as JSON.")
    var json = false

    @Flag(help: "Do not reconnect: exit when the daemon closes the connection.")
    var once = false

    @Option(help: "Wait up to this many seconds for the daemon's socket to appear first.")
    var wait: Double = 0

    func validate() throws {
        _ = try makePostureRules()
        _ = try makeTarget()
        if let natural, PanelNaturalOrientation(rawValue: natural) == nil {
            throw ValidationError("--natural must be portrait or landscape, not \"\(natural)\"")
        }
        guard wait >= 0, wait <= SecondsConversion.maximum else {
            throw ValidationError("--wait must be a number of seconds from 0 to 1e9, not \(wait)")
        }
    }

    /// `--for`'s compositor and output, if given.
    func makeTarget() throws -> (compositor: Compositor, output: String?)? {
        guard let first = target.first else { return nil }
        guard let compositor = Compositor(rawValue: first.lowercased()), target.count <= 2 else {
            throw ValidationError("--for takes a compositor (\(Compositor.allCases.map(\.rawValue).joined(separator: ", "))) and optionally an output, not \"\(target.joined(separator: " "))\"")
        }
        return (compositor, target.count == 2 ? target[1] : nil)
    }

    /// The output to turn and the panel's shape: the compositor is asked for its outputs.
    func resolveTarget(_ compositor: Compositor, output named: String?) async throws -> CompositorTarget {
        let listed = await ExternalCommand.run(compositor.outputsCommand, captureOutput: true)
        let command = compositor.outputsCommand.joined(separator: " ")
        guard listed.status == 0 else {
            throw CleanExit.message("orientationctl: cannot list \(compositor.rawValue)'s outputs: `\(command)` exited with status \(listed.status)"
                                    + (listed.status == 127 ? " (not installed?)" : " (is \(compositor.rawValue) running, in this session?)"), failing: true)
        }
        let outputs: [CompositorOutput]
        do { outputs = try CompositorOutput.parse(listed.output, for: compositor) } catch {
            throw CleanExit.message("orientationctl: \(error)", failing: true)
        }
        let names = outputs.map(\.name).joined(separator: ", ")
        let chosen: CompositorOutput
        if let named {
            guard let found = outputs.first(where: { $0.name == named }) else {
                throw CleanExit.message("orientationctl: \(compositor.rawValue) has no output \(named) (it has: \(names.isEmpty ? "none" : names))", failing: true)
            }
            chosen = found
        } else {
            guard let found = CompositorOutput.builtIn(outputs) else {
                throw CleanExit.message("orientationctl: no built-in panel among \(compositor.rawValue)'s outputs (\(names.isEmpty ? "none" : names)): name one after --for \(compositor.rawValue)", failing: true)
            }
            chosen = found
        }
        let shape = natural.flatMap(PanelNaturalOrientation.init(rawValue:)) ?? chosen.natural
        return CompositorTarget(compositor: compositor, output: chosen, natural: shape)
    }

    /// The defaults with each `--posture-rule` applied in order.
    func makePostureRules() throws -> PostureRotationRules {
        var rules = PostureRotationRules.defaults
        for text in postureRules {
            do { try rules.set(parsing: text) } catch { throw ValidationError("--posture-rule: \(error)") }
        }
        return rules
    }

    func makePolicy() throws -> RotationPolicy {
        do {
            let preferredOrientation: InterfaceOrientation?
            if let preferred {
                guard let value = InterfaceOrientation(rawValue: preferred) else {
                    throw ValidationError("--preferred: unknown orientation \"\(preferred)\"")
                }
                preferredOrientation = value
            } else {
                preferredOrientation = nil
            }
            return try RotationPolicy(app: InterfaceOrientationMask(parsing: supported), window: InterfaceOrientationMask(parsing: window),
                                      preferred: preferredOrientation)
        } catch let error as RotationPolicyError {
            throw ValidationError("\(error)")
        }
    }

    func run() async throws {
        var policy = try makePolicy()
        let app = policy.appOrientations
        let rules = try makePostureRules()
        var posture = Posture.unknown
        let client = connection.client
        if wait > 0, !(await waitForDaemon(client, seconds: wait)) {
            throw CleanExit.message("no daemon answered on \(connection.socketPath) within \(wait) s", failing: true)
        }
        var compositor: CompositorTarget? = nil
        if let (kind, output) = try makeTarget() {
            let resolved = try await resolveTarget(kind, output: output)
            printError("orientationctl: rotating \(kind.rawValue)'s \(resolved.output.name) (\(resolved.output.width)x\(resolved.output.height), natural \(resolved.natural.rawValue))")
            await resolved.setUp()
            compositor = resolved
        }
        let natural = compositor?.natural ?? natural.flatMap(PanelNaturalOrientation.init(rawValue:)) ?? .portrait
        // The interface starts as the panel sits (a held posture at start holds that, not a
        // portrait turned onto a landscape panel's side), unless --preferred says otherwise.
        if preferred == nil, natural == .landscape, policy.supportedOrientations.contains(.landscapeRight) {
            let window = policy.windowOrientations
            _ = try? policy.setSupported(app: .landscapeRight, window: .all)
            _ = try? policy.setSupported(app: app, window: window)
        }
        var applied: InterfaceOrientation? = nil
        var connected = false
        var lastFailure: String? = nil
        var sensor: SensorStatus? = nil
        var last: OrientationState? = nil
        let topics: [SubscriptionTopic]? = ignorePosture ? nil : [.orientation, .posture]
        for await update in client.updates(reconnect: once ? .never : .default, sensorChanges: true, topics: topics) {
            if case .posture(let current) = update {
                // A new posture changes the rule; the interface may move at once (a tent turning
                // upside down), and is decided again below with the last state.
                guard current.posture != posture else { continue }
                posture = current.posture
                do { try policy.apply(rules.rule(for: posture), app: app) } catch {
                    printError("orientationctl: posture \(posture): \(error); following the masks")
                    _ = try? policy.apply(.follow, app: app)
                }
                guard let state = last, applied != nil || Self.knows(policy, device: state.orientation),
                      policy.interfaceOrientation != applied else { continue }
                applied = policy.interfaceOrientation
                await decide(policy, state: state, posture: posture, natural: natural, compositor: compositor)
                continue
            }
            guard let state = update.state else {
                if case .disconnected(let reason) = update {
                    // Never connected with --once: one line, with the reason, at the end.
                    if connected || !once { printError("orientationctl: disconnected: \(reason)") }
                    lastFailure = String(describing: reason)
                }
                continue
            }
            connected = true
            last = state
            // Standard output stays the decisions; why nothing rotates goes to standard error.
            if let line = UpdateFormat.sensorLine(state, after: sensor) { printError("orientationctl: \(line)") }
            sensor = state.sensor
            policy.update(device: natural.portraitNativeEquivalent(of: state.orientation), locked: state.locked)
            // Nothing runs before the orientation is known (issue 27: at start the command ran
            // with the default portrait while the sensor had said nothing yet, so a tablet held
            // in landscape flipped to portrait and back).
            guard applied != nil || Self.knows(policy, device: state.orientation) else { continue }
            guard policy.interfaceOrientation != applied else { continue }
            applied = policy.interfaceOrientation
            await decide(policy, state: state, posture: posture, natural: natural, compositor: compositor)
        }
        if !connected {
            throw CleanExit.message(lastFailure ?? "cannot connect to \(connection.socketPath)", failing: true)
        }
    }

    /// Whether the first decision may be made: the device reports an in-plane orientation, or
    /// the policy needs none (a preferred orientation to start in, or one supported orientation).
    static func knows(_ policy: RotationPolicy, device: DeviceOrientation) -> Bool {
        device.isValidInterfaceOrientation || policy.preferredOrientation != nil || policy.supportedOrientations.orientations.count == 1
    }

    func decide(_ policy: RotationPolicy, state: OrientationState, posture: Posture, natural: PanelNaturalOrientation,
                compositor: CompositorTarget?) async {
        let interface = policy.interfaceOrientation
        let rotation = natural.panelRotation(for: interface)
        var environment = Self.environment(interface: interface, rotation: rotation, state: state) + [("ORIENTATION_POSTURE", posture.rawValue)]
        if let compositor { environment.append(("ORIENTATION_OUTPUT", compositor.output.name)) }
        if json {
            print(JSONWriter.serialize(.object([("interface", .string(interface.rawValue)), ("rotation", .number(Double(rotation))),
                                                ("device", .string(state.orientation.rawValue)), ("locked", .bool(state.locked)),
                                                ("posture", .string(posture.rawValue))])))
        } else {
            print("\(interface.rawValue) \(rotation)")
        }
        fflush(nil)
        await compositor?.rotate(to: rotation)
        guard let exec else { return }
        let status = await Self.run(exec, environment: environment)
        if status != 0 { printError("orientationctl: command exited with status \(status): \(exec)") }
    }

    /// The variables `--exec` gets for an interface shown turned `rotation` degrees clockwise.
    static func environment(interface: InterfaceOrientation, rotation: Int, state: OrientationState) -> [(String, String)] {
        let xrandr = ["normal", "right", "inverted", "left"][rotation / 90]
        return [("ORIENTATION_INTERFACE", interface.rawValue), ("ORIENTATION_ROTATION", "\(rotation)"),
                ("ORIENTATION_XRANDR", xrandr), ("ORIENTATION_WL_TRANSFORM", "\((4 - rotation / 90) % 4)"),
                ("ORIENTATION_DEVICE", state.orientation.rawValue), ("ORIENTATION_LOCKED", state.locked ? "1" : "0")]
    }

    /// Runs `/bin/sh -c command` with extra environment variables; returns its exit status
    /// (awaited on a thread of its own: ``ExternalCommand``).
    static func run(_ command: String, environment: [(String, String)]) async -> Int32 {
        await ExternalCommand.run(["/bin/sh", "-c", command], environment: ExternalCommand.environment(adding: environment)).status
    }
}
