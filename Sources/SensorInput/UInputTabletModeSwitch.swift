import CLinuxInput
import Glibc
import Synchronization

/// orientationd's virtual tablet-mode switch (issue 30): an input device made through
/// `/dev/uinput` that reports `SW_TABLET_MODE`, for a convertible whose firmware has no working
/// switch, so that GNOME's and KDE's existing gating (auto-rotation and the on-screen keyboard
/// only in tablet mode, the touchpad off) works unchanged. To the desktop it is a switch like
/// any other: `libinput list-devices` shows "orientationd tablet mode switch" with
/// capability `switch`.
///
/// **Opt-in**, by the contract its owner keeps (the daemon's `TabletModeSwitchKeeper`): only with
/// `[posture] tablet-mode-switch = true` in the configuration, and never where the machine has a
/// tablet-mode switch of its own (SensorIIO's `DiscoveredSensors.realTabletModeSwitches` not empty:
/// checked before creating it and again on each udev `add` of an input device, since intel-hid
/// adds its switch at the first fold). **To turn it off**, set the key to `false` (or remove it)
/// and reload or restart orientationd: the device is destroyed (``close()``), and the kernel
/// destroys it too whenever the process exits, so none outlives the daemon.
///
/// The device: name ``deviceName``, `phys` ``phys``, bus `BUS_VIRTUAL` (``busType``), vendor
/// ``vendor``/product ``product``; `EV_SW` with `SW_TABLET_MODE` only (and `EV_SYN`). It is
/// created in laptop mode (0, the kernel's initial state for every switch) and then set to the
/// state given.
///
/// Contract:
/// - **Creating it** opens `/dev/uinput` (needs root or write access to it, as the system
///   service has) and registers the device; a failure throws ``Failure``, whose description
///   says which step failed and what to do (load the `uinput` module, run as root), and leaves
///   nothing open. Nothing about it is fatal to the caller: without it the desktop behaves as
///   before.
/// - **``set(tabletMode:)`` is idempotent**: the same state again writes nothing, so a reader
///   sees one event per real change; a failed write leaves the state as it was (the next call
///   tries again).
/// - **One owner.** The descriptor lives inside this object behind a lock and never leaves it;
///   every call is a few non-blocking system calls (the descriptor is `O_NONBLOCK`), safe from
///   any thread. Creating it registers an input device, which can take some milliseconds: make
///   it on an owner thread (`OwnerThread.run`), not on an event loop.
public final class UInputTabletModeSwitch: Sendable {
    /// The device's name, as `libinput list-devices` and GNOME show it.
    public static let deviceName = "orientationd tablet mode switch"
    /// The device's `phys`: with the name and the bus, how orientationd tells its own switch
    /// from a real one (``InputSwitchDevice/isOrientationdTabletModeSwitch``).
    public static let phys = "orientationd/tablet-mode"
    /// `BUS_VIRTUAL`.
    public static let busType: UInt16 = od_input_bus_virtual()
    /// `id/vendor` and `id/product`: not a USB vendor (the bus is virtual), chosen so the device
    /// can be matched in a udev rule or hwdb entry (`input:b0006v4F44p5401*`: "OD", 0x5401).
    public static let vendor: UInt16 = 0x4F44
    public static let product: UInt16 = 0x5401
    /// Where uinput's control node is.
    public static let defaultPath = "/dev/uinput"

    /// Why the switch could not be made or set.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The control node used.
        public let path: String
        /// The step that failed: `open`, an ioctl's name (`UI_DEV_CREATE`), `write` or `closed`.
        public let step: String
        /// Its errno (0 for `closed`).
        public let errno: Int32

        public init(path: String, step: String, errno: Int32) {
            self.path = path
            self.step = step
            self.errno = errno
        }

        /// What happened and what to do about it.
        public var description: String {
            let reason = String(cString: strerror(errno))
            switch (step, errno) {
            case ("closed", _):
                return "the virtual tablet-mode switch was already removed"
            case ("open", ENOENT):
                return "cannot create the virtual tablet-mode switch: \(path) does not exist; load the uinput module (modprobe uinput)"
            case ("open", ENODEV), ("open", ENXIO):
                return "cannot create the virtual tablet-mode switch: the kernel has no uinput driver behind \(path) (\(reason)); load the uinput module (modprobe uinput) or build the kernel with CONFIG_INPUT_UINPUT"
            case ("open", EPERM):
                // The device cgroup answers EPERM whatever the file's mode: systemd's DevicePolicy.
                return "cannot create the virtual tablet-mode switch: opening \(path) is not permitted (\(reason)); under systemd the shipped unit does not allow the device until its owner opts in: `systemctl edit orientationd`, add [Service] DeviceAllow=/dev/uinput rw, restart (orientationd(8), TABLET MODE SWITCH); the process also needs write access to it (root)"
            case ("open", EACCES), ("open", EROFS):
                return "cannot create the virtual tablet-mode switch: not permitted to open \(path) for writing (\(reason)); it needs root (the orientationd service) or write access to \(path)"
            case ("open", _):
                return "cannot create the virtual tablet-mode switch: cannot open \(path): \(reason)"
            case (_, ENOTTY) where step.hasPrefix("UI_"), (_, EINVAL) where step.hasPrefix("UI_"):
                return "cannot create the virtual tablet-mode switch: \(path) does not answer \(step) (\(reason)); it is not a uinput device, or the kernel predates Linux 4.5"
            case ("write", _):
                return "cannot report tablet mode on the virtual switch: \(reason)"
            default:
                return "cannot create the virtual tablet-mode switch: \(step) on \(path) failed: \(reason)"
            }
        }
    }

    private struct State {
        var fd: Int32
        var tabletMode: Bool
    }

    private let path: String
    private let state: Mutex<State>
    /// The input device's sysfs name (`input17`: /sys/devices/virtual/input/input17), `nil`
    /// where the kernel does not say (`UI_GET_SYSNAME`, Linux 3.15).
    public let sysname: String?

    /// Creates the device through `path` and sets it to `tabletMode`. Throws ``Failure`` (the
    /// step and its errno) when `path` is missing, not permitted, not uinput, or the device
    /// cannot be registered or set; then nothing stays open.
    public init(path: String = UInputTabletModeSwitch.defaultPath, tabletMode: Bool) throws(Failure) {
        var failedStep: UnsafePointer<CChar>? = nil
        let fd = od_uinput_create_switch(path, Self.deviceName, Self.phys, Self.vendor, Self.product, 1,
                                         UInt32(InputSwitchCode.tabletMode.rawValue), &failedStep)
        guard fd >= 0 else {
            throw Failure(path: path, step: failedStep.map { String(cString: $0) } ?? "open", errno: errno)
        }
        var name = [CChar](repeating: 0, count: 64)
        sysname = od_uinput_sysname(fd, &name, UInt32(name.count - 1)) == 0
            ? name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } : nil
        self.path = path
        state = Mutex(State(fd: fd, tabletMode: false))
        if tabletMode {
            do throws(Failure) {
                try set(tabletMode: true)
            } catch {
                close()
                throw error
            }
        }
    }

    deinit {
        close()
    }

    /// The state last reported; `nil` once closed.
    public var tabletMode: Bool? {
        state.withLock { $0.fd >= 0 ? $0.tabletMode : nil }
    }

    /// Reports `tabletMode` (`SW_TABLET_MODE` 1 or 0, then `SYN_REPORT`) if it differs from the
    /// state last reported; returns whether an event was written. Throws when the write fails
    /// (the state is then unchanged) or the switch was closed.
    @discardableResult
    public func set(tabletMode: Bool) throws(Failure) -> Bool {
        let outcome = state.withLock { state -> Result<Bool, Failure> in
            guard state.fd >= 0 else { return .failure(Failure(path: path, step: "closed", errno: 0)) }
            guard state.tabletMode != tabletMode else { return .success(false) }
            // lock-ok: one non-blocking write(2) to uinput (O_NONBLOCK, no callback); made under
            // the lock so two callers cannot leave the kernel's state other than the one recorded.
            guard od_uinput_emit_switch(state.fd, UInt32(InputSwitchCode.tabletMode.rawValue), tabletMode ? 1 : 0) == 0 else {
                return .failure(Failure(path: path, step: "write", errno: errno))
            }
            state.tabletMode = tabletMode
            return .success(true)
        }
        return try outcome.get()
    }

    /// Destroys the device (`UI_DEV_DESTROY`) and closes the descriptor. Idempotent; also done
    /// when the object goes away.
    public func close() {
        let fd = state.withLock { state -> Int32 in
            defer { state.fd = -1 }
            return state.fd
        }
        if fd >= 0 { _ = od_uinput_destroy(fd) }
    }
}
