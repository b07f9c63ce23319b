import Logging
import OrientationCore
import OwnerThreads
import PostureCore
import SensorIIO
import SensorInput
import SensorLifecycle
import SensorPipeline
import Synchronization

/// orientationd's virtual tablet-mode switch, kept (issue 30, item 3): with
/// `[posture] tablet-mode-switch = true`, on a convertible (posture present) whose machine has no
/// tablet-mode switch of its own, a uinput device (``UInputTabletModeSwitch``) reporting
/// `SW_TABLET_MODE` 1 in `tablet`, `tent` and `stand` and 0 in `closed`, `laptop` and `flat`, so
/// GNOME's and KDE's gating (auto-rotation and the on-screen keyboard only in tablet mode) works
/// unchanged. While it exists it claims the posture (as ``claimer``): the two accelerometers are
/// read all the time, as the desktop's own switch would be.
///
/// A sensor like the others (issue 36): its ``lifecycle`` is a ``ClaimedSensor`` claimed by the
/// configuration's key and present while the machine is a convertible without a switch of its
/// own; its session creates the device, claims the posture, and undoes both when closed.
///
/// Contract:
/// - **Never beside a real switch.** A tablet-mode switch is real when any input device but ours
///   lists `SW_TABLET_MODE` in `capabilities/sw` (``DiscoveredSensors/realTabletModeSwitches``).
///   Looked for before creating ours and again at every udev event (intel-hid adds its switch at
///   the first fold): when one appears, ours is destroyed and the claim released.
/// - **Off by default; turned off by the key.** ``update(enabled:present:switches:)`` with `false` (a
///   reload) destroys it; the kernel destroys it too when the process exits.
/// - While the posture is `unknown` the switch keeps its last state (created: 0, laptop mode).
/// - Nothing here is fatal: a device that cannot be created (no `uinput` module, the unit's
///   device policy) is logged once per reason, and the desktop behaves as before; it is tried
///   again at the next udev event or reload.
/// - ``update(enabled:present:switches:)`` looks for the machine's own switches (udev enumeration blocks:
///   call it on an owner thread, the udev monitor's or `OwnerThread.run`); one look at a time,
///   each on the latest values, so callers on several threads leave it matching the last of
///   them (issue 36). ``postureChanged(_:)`` writes one non-blocking event; any thread.
public final class TabletModeSwitchKeeper: Sendable {
    /// The name the switch claims the posture under.
    public static let claimer = "tablet-mode-switch"
    /// The name the configuration's key claims the switch under.
    static let configurationClaimer = "configuration"

    private struct Inner {
        var enabled = false
        var present = false
        /// The input switches a discovery handed in with the newest values (`nil`: look them up).
        var switches: [InputSwitchDevice]? = nil
        /// A newer `enabled`/`present` than the running look has seen, and whether one runs.
        var dirty = false
        var updating = false
        /// The machine's own tablet-mode switches, as last looked for (`nil`: not looked).
        var real: [InputSwitchDevice]? = nil
        var lookFailure: String? = nil
        var device: UInputTabletModeSwitch? = nil
        var posture = Posture.unknown
        var warned: Set<String> = []
        var noticedReal = false
    }

    /// The switch's claims (the key), presence (a convertible without a switch of its own) and
    /// open/close loop; open means the device exists.
    public let lifecycle: ClaimedSensor
    private let inner = Mutex(Inner())
    private let logger: Logger
    private let path: String
    private let setClaimed: @Sendable (Bool) -> Void

    /// - Parameters:
    ///   - path: the uinput node (tests point it elsewhere).
    ///   - setClaimed: claims (`true`) or releases the posture; called with no lock held.
    public init(logger: Logger, path: String = UInputTabletModeSwitch.defaultPath, setClaimed: @escaping @Sendable (Bool) -> Void) {
        self.logger = logger
        self.path = path
        self.setClaimed = setClaimed
        lifecycle = ClaimedSensor(releaseDelay: 0, present: false)
        lifecycle.start { [weak self] _ in await self?.keep() ?? .closed }
    }

    /// Whether `tablet-mode-switch` is on (as last given to ``update(enabled:present:switches:)``).
    public var enabled: Bool { inner.withLock { $0.enabled } }

    /// Whether orientationd's switch exists now.
    public var isActive: Bool { inner.withLock { $0.device != nil } }

    /// The state the switch last reported (`nil` without a switch).
    public var tabletMode: Bool? { inner.withLock { $0.device }?.tabletMode }

    /// Why the switch exists or not, for logs and tests.
    public var status: String {
        let failure = lifecycle.status.failure
        return inner.withLock { inner in
            if !inner.enabled { return "off (tablet-mode-switch = false)" }
            if !inner.present { return "no posture (not a convertible: no base accelerometer)" }
            if let look = inner.lookFailure { return look }
            if let real = inner.real, !real.isEmpty { return "the machine has its own: \(Self.names(real))" }
            if inner.device != nil { return "active" }
            if let failure { return "cannot be created: \(failure)" }
            return "creating"
        }
    }

    /// Records `enabled` (the configuration; `nil`: as it was) and `present` (posture can be
    /// measured; `nil`: as it was), looks for the machine's own switches while enabled (in
    /// `switches`, a discovery's input switches, or through the backend table when not given),
    /// and hands the result to the lifecycle, which creates or destroys the device to match. On
    /// an owner thread: it may enumerate udev.
    ///
    /// Level-triggered: the values are recorded first; one caller at a time looks, over and over
    /// until no newer values wait. A caller that finds a look running returns at once: the
    /// running one does its work.
    public func update(enabled: Bool? = nil, present: Bool? = nil, switches: [InputSwitchDevice]? = nil) {
        let runs = inner.withLock { inner -> Bool in
            if let enabled { inner.enabled = enabled }
            if let present { inner.present = present }
            inner.switches = switches
            inner.dirty = true
            guard !inner.updating else { return false }
            inner.updating = true
            return true
        }
        guard runs else { return }
        while let (enabled, present, switches) = inner.withLock({ inner -> (Bool, Bool, [InputSwitchDevice]?)? in
            guard inner.dirty else {
                inner.updating = false
                return nil
            }
            inner.dirty = false
            defer { inner.switches = nil }
            return (inner.enabled, inner.present, inner.switches)
        }) {
            look(enabled: enabled, present: present, switches: switches)
        }
    }

    /// One pass of ``update(enabled:present:switches:)`` on the values it took.
    private func look(enabled: Bool, present: Bool, switches: [InputSwitchDevice]?) {
        // Off: nothing to look for (an idle daemon enumerates nothing more).
        var real: [InputSwitchDevice]? = nil
        var failure: String? = nil
        if enabled {
            do {
                let found = try switches.map { DiscoveredSensors(switches: $0) } ?? SensorBackends.discover([.switches])
                real = found.realTabletModeSwitches
            } catch {
                failure = "cannot look for a tablet-mode switch: \(error)"
            }
        }
        let notice = inner.withLock { inner -> String? in
            inner.real = real
            inner.lookFailure = failure.map { _ in "udev unavailable" }
            let first = real.map { !$0.isEmpty && !inner.noticedReal } ?? false
            if let real { inner.noticedReal = !real.isEmpty }
            return first ? Self.names(real ?? []) : nil
        }
        if let failure { warn(failure) }
        // Said once (at start, or when the machine's own appears): the key is not needed.
        if let notice {
            logger.notice("[posture] tablet-mode-switch = true is not needed: the machine has its own tablet-mode switch, \(notice); desktops read it already, and orientationd reads it for the posture")
        }
        lifecycle.setClaimed(Self.configurationClaimer, enabled)
        lifecycle.setPresent(present && failure == nil && (real ?? []).isEmpty)
    }

    /// The session: the device, from its creation until the lifecycle closes it.
    private func keep() async -> ClaimedSensor.Ending {
        let posture = inner.withLock { $0.posture }
        let made = await OwnerThread.run(name: "od-uinput") { [path] () -> Result<UInputTabletModeSwitch, UInputTabletModeSwitch.Failure> in
            Result { () throws(UInputTabletModeSwitch.Failure) in try UInputTabletModeSwitch(path: path, tabletMode: posture.isTabletMode ?? false) }
        }
        let device: UInputTabletModeSwitch
        switch made {
        case .success(let made)?:
            device = made
        case .failure(let error)?:
            warn("\(error)")
            return .failed("\(error)")
        case nil:
            warn("no thread could be started to create it")
            return .failed("no thread could be started")
        }
        inner.withLock { $0.device = device }
        logger.notice("virtual tablet-mode switch created: the desktop sees SW_TABLET_MODE follow the posture",
                      metadata: ["device": "\(device.sysname ?? "?")", "name": "\(UInputTabletModeSwitch.deviceName)"])
        setClaimed(true)
        // Until the lifecycle closes it: the key went off, the machine's own switch appeared,
        // the posture went, or shutdown.
        let (never, continuation) = AsyncStream.makeStream(of: Void.self)
        for await _ in never {}  // ends when this task is cancelled
        continuation.finish()
        inner.withLock { $0.device = nil }
        device.close()
        logger.notice("virtual tablet-mode switch removed", metadata: ["reason": "\(status)"])
        setClaimed(false)
        return .closed
    }

    /// Reports a new posture: tablet mode in `tablet`, `tent` and `stand`, laptop mode in
    /// `closed`, `laptop` and `flat`; `unknown` keeps the last state.
    public func postureChanged(_ state: PostureState) {
        let device = inner.withLock { inner -> UInputTabletModeSwitch? in
            inner.posture = state.posture
            return inner.device
        }
        guard let device, let mode = state.posture.isTabletMode else { return }
        do { try device.set(tabletMode: mode) } catch {
            warn("cannot report tablet mode: \(error)")
        }
    }

    /// Destroys the switch and ends the lifecycle (shutdown); nothing makes one after it.
    public func stop() async {
        await lifecycle.stop()
    }

    private func warn(_ message: String) {
        let first = inner.withLock { $0.warned.insert(message).inserted }
        if first { logger.warning("virtual tablet-mode switch: \(message)") }
    }

    private static func names(_ devices: [InputSwitchDevice]) -> String {
        devices.map { "\($0.name ?? $0.id) (\($0.id))" }.joined(separator: ", ")
    }
}
