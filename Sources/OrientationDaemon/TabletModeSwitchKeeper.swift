import Logging
import OrientationCore
import OwnerThreads
import PostureCore
import SensorIIO
import SensorInput
import Synchronization

/// orientationd's virtual tablet-mode switch, kept (issue 30, item 3): with
/// `[posture] tablet-mode-switch = true`, on a convertible (posture present) whose machine has no
/// tablet-mode switch of its own, a uinput device (``UInputTabletModeSwitch``) reporting
/// `SW_TABLET_MODE` 1 in `tablet`, `tent` and `stand` and 0 in `closed`, `laptop` and `flat`, so
/// GNOME's and KDE's gating (auto-rotation and the on-screen keyboard only in tablet mode) works
/// unchanged. While it exists it claims the posture (as ``claimer``): the two accelerometers are
/// read all the time, as the desktop's own switch would be.
///
/// Contract:
/// - **Never beside a real switch.** A tablet-mode switch is real when any input device but ours
///   lists `SW_TABLET_MODE` in `capabilities/sw` (``InputSwitchDiscovery/realTabletModeSwitches()``).
///   Checked before creating ours and again at every udev event (intel-hid adds its switch at
///   the first fold): when one appears, ours is destroyed and the claim released.
/// - **Off by default; turned off by the key.** ``update(enabled:present:)`` with `false` (a
///   reload) destroys it; the kernel destroys it too when the process exits.
/// - While the posture is `unknown` the switch keeps its last state (created: 0, laptop mode).
/// - Nothing here is fatal: a device that cannot be created (no `uinput` module, the unit's
///   device policy) is logged once per reason, and the desktop behaves as before.
/// - udev enumeration and creating the device block: ``update(enabled:present:)`` runs on the
///   calling thread, which must be an owner thread (the udev monitor's, or `OwnerThread.run`).
///   ``postureChanged(_:)`` writes one non-blocking event; any thread.
public final class TabletModeSwitchKeeper: Sendable {
    /// The name the switch claims the posture under.
    public static let claimer = "tablet-mode-switch"

    private struct Inner {
        var enabled = false
        var present = false
        /// A newer `enabled`/`present` than the running update has seen, and whether one runs:
        /// one update at a time, each on the latest values (issue 36: two callers' separate
        /// check and act let a reload to `false` be undone, or make two devices).
        var dirty = false
        var updating = false
        var closed = false
        var device: UInputTabletModeSwitch? = nil
        var posture = Posture.unknown
        var warned: Set<String> = []
        var reason = "off (tablet-mode-switch = false)"
    }

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
    }

    /// Whether `tablet-mode-switch` is on (as last given to ``update(enabled:present:)``).
    public var enabled: Bool { inner.withLock { $0.enabled } }

    /// Whether orientationd's switch exists now.
    public var isActive: Bool { inner.withLock { $0.device != nil } }

    /// The state the switch last reported (`nil` without a switch).
    public var tabletMode: Bool? { inner.withLock { $0.device }?.tabletMode }

    /// Why the switch exists or not, for logs and tests.
    public var status: String { inner.withLock { $0.reason } }

    /// Creates or destroys the switch to match `enabled` (the configuration; `nil`: as it was),
    /// `present` (posture can be measured; `nil`: as it was) and the machine's own switches.
    /// On an owner thread: it enumerates udev and may register an input device.
    ///
    /// Level-triggered: the values are recorded first; one caller at a time does the work, over
    /// and over until no newer values wait, so the switch always ends matching the latest ones
    /// whichever thread calls (a udev event's presence, a reload's key) and in whatever order.
    /// A caller that finds an update running returns at once: the running one does its work.
    public func update(enabled: Bool? = nil, present: Bool? = nil) {
        let runs = inner.withLock { inner -> Bool in
            if let enabled { inner.enabled = enabled }
            if let present { inner.present = present }
            inner.dirty = true
            guard !inner.updating else { return false }
            inner.updating = true
            return true
        }
        guard runs else { return }
        while let (enabled, present) = inner.withLock({ inner -> (Bool, Bool)? in
            guard inner.dirty, !inner.closed else {
                inner.updating = false
                return nil
            }
            inner.dirty = false
            return (inner.enabled, inner.present)
        }) {
            reconcile(enabled: enabled, present: present)
        }
    }

    /// One pass of ``update(enabled:present:)`` on the values it took.
    private func reconcile(enabled: Bool, present: Bool) {
        // Off and none made: nothing to look for (an idle daemon enumerates nothing more).
        let idle = inner.withLock { inner -> Bool in
            guard !enabled, inner.device == nil else { return false }
            inner.reason = "off (tablet-mode-switch = false)"
            return true
        }
        if idle { return }
        let real: [InputSwitchDevice]
        do { real = try InputSwitchDiscovery.realTabletModeSwitches() } catch {
            return warn("cannot look for a tablet-mode switch: \(error)", reason: "udev unavailable")
        }
        let wanted = enabled && present && real.isEmpty
        let reason = !enabled ? "off (tablet-mode-switch = false)"
            : !present ? "no posture (not a convertible: no base accelerometer)"
            : !real.isEmpty ? "the machine has its own: \(real.map { "\($0.name ?? $0.id) (\($0.id))" }.joined(separator: ", "))"
            : "active"
        let (existing, posture) = inner.withLock { inner -> (UInputTabletModeSwitch?, Posture) in
            (inner.device, inner.posture)
        }
        if wanted == (existing != nil) {
            let previous = inner.withLock { inner -> String in
                defer { inner.reason = reason }
                return inner.reason
            }
            // Said once (at start, or when the machine's own appears): the key is not needed.
            if enabled, !real.isEmpty, previous != reason {
                let names = real.map { "\($0.name ?? $0.id) (\($0.id))" }.joined(separator: ", ")
                logger.notice("[posture] tablet-mode-switch = true is not needed: the machine has its own tablet-mode switch, \(names); desktops read it already, and orientationd reads it for the posture")
            }
            return
        }
        if let existing {
            existing.close()
            inner.withLock { inner in
                inner.device = nil
                inner.reason = reason
            }
            logger.notice("virtual tablet-mode switch removed", metadata: ["reason": "\(reason)"])
            setClaimed(false)
            return
        }
        do {
            let device = try UInputTabletModeSwitch(path: path, tabletMode: posture.isTabletMode ?? false)
            let kept = inner.withLock { inner -> Bool in
                guard !inner.closed else { return false }
                inner.device = device
                inner.reason = "active"
                return true
            }
            // Closed meanwhile (shutdown): not kept.
            guard kept else { return device.close() }
            logger.notice("virtual tablet-mode switch created: the desktop sees SW_TABLET_MODE follow the posture",
                          metadata: ["device": "\(device.sysname ?? "?")", "name": "\(UInputTabletModeSwitch.deviceName)"])
            setClaimed(true)
        } catch {
            warn("\(error)", reason: "cannot be created: \(error)")
        }
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
            warn("cannot report tablet mode: \(error)", reason: "active (last write failed)")
        }
    }

    /// Destroys the switch (shutdown); no update makes one after it.
    public func close() {
        let device = inner.withLock { inner -> UInputTabletModeSwitch? in
            inner.closed = true
            defer { inner.device = nil }
            return inner.device
        }
        device?.close()
    }

    private func warn(_ message: String, reason: String) {
        let first = inner.withLock { inner -> Bool in
            inner.reason = reason
            return inner.warned.insert(message).inserted
        }
        if first { logger.warning("virtual tablet-mode switch: \(message)") }
    }
}
