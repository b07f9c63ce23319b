import ArgumentParser
import Glibc
import OrientationClient
import OrientationCore

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
        Nothing runs until the orientation is known: the first decision waits for the sensor to report \
        portrait, landscape or upside down (a device lying flat, or a sensor not yet heard from, keeps it waiting), \
        unless --preferred names the orientation to start in or the masks allow only one.
        On a convertible (an accelerometer in the display and one in the base) each posture has a rule: \
        follow the masks, hold the current orientation, or follow among other orientations. \
        The defaults: closed=hold laptop=hold tent=all (a tent's screen hangs upside down); \
        every other posture, and any machine that is not a convertible, follows. \
        --posture-rule changes one (laptop=follow, stand=landscape); --ignore-posture turns them off.
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
        guard wait >= 0, wait <= SecondsConversion.maximum else {
            throw ValidationError("--wait must be a number of seconds from 0 to 1e9, not \(wait)")
        }
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
                await decide(policy, state: state, posture: posture)
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
            policy.update(device: state.orientation, locked: state.locked)
            // Nothing runs before the orientation is known (issue 27: at start the command ran
            // with the default portrait while the sensor had said nothing yet, so a tablet held
            // in landscape flipped to portrait and back).
            guard applied != nil || Self.knows(policy, device: state.orientation) else { continue }
            guard policy.interfaceOrientation != applied else { continue }
            applied = policy.interfaceOrientation
            await decide(policy, state: state, posture: posture)
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

    func decide(_ policy: RotationPolicy, state: OrientationState, posture: Posture) async {
        let interface = policy.interfaceOrientation
        let environment = Self.environment(policy, state: state) + [("ORIENTATION_POSTURE", posture.rawValue)]
        if json {
            print(JSONWriter.serialize(.object([("interface", .string(interface.rawValue)), ("rotation", .number(Double(policy.rotationDegrees))),
                                                ("device", .string(state.orientation.rawValue)), ("locked", .bool(state.locked))])))
        } else {
            print("\(interface.rawValue) \(policy.rotationDegrees)")
        }
        fflush(nil)
        guard let exec else { return }
        let status = await Self.run(exec, environment: environment)
        if status != 0 { printError("orientationctl: command exited with status \(status): \(exec)") }
    }

    static func environment(_ policy: RotationPolicy, state: OrientationState) -> [(String, String)] {
        let degrees = policy.rotationDegrees
        let xrandr = ["normal", "right", "inverted", "left"][degrees / 90]
        return [("ORIENTATION_INTERFACE", policy.interfaceOrientation.rawValue), ("ORIENTATION_ROTATION", "\(degrees)"),
                ("ORIENTATION_XRANDR", xrandr), ("ORIENTATION_WL_TRANSFORM", "\((4 - degrees / 90) % 4)"),
                ("ORIENTATION_DEVICE", state.orientation.rawValue), ("ORIENTATION_LOCKED", state.locked ? "1" : "0")]
    }

    /// Runs `/bin/sh -c command` with extra environment variables; returns its exit status
    /// (awaited on a thread of its own: ``ChildProcessWaiter``).
    static func run(_ command: String, environment: [(String, String)]) async -> Int32 {
        var env = [String]()
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            if !environment.contains(where: { text.hasPrefix($0.0 + "=") }) { env.append(text) }
            index += 1
        }
        env += environment.map { "\($0)=\($1)" }
        let arguments: [String] = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // A child inherits the spawning thread's signal mask and ignored signals; the
        // concurrency pool's threads may block some, and the command must get a clean slate
        // (a Ctrl-C or SIGTERM meant for it must not stay pending forever).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/sh", nil, &attributes, argv, envp) == 0 else { return 127 }
        return await ChildProcessWaiter.exitStatus(of: pid)
    }
}
