import CLibUdev
import Glibc
import Logging
import OwnerThreads
import SensorDeviceAccess

/// Watches udev for `iio` devices, `hwmon` devices (a light sensor) and input event nodes
/// (accelerometers, a proximity switch) coming, going and changing, on a thread of its own (the
/// udev monitor handle never leaves it), and reports each event through `onEvent`. A monitor that
/// cannot be set up (no netlink socket in a container, udev not running) is logged once with the
/// step that failed: the daemon goes on without hotplug, it does not fail.
public final class UdevMonitor: Sendable {
    public struct Event: Sendable, Hashable {
        /// `add`, `remove`, `change`, `bind`, …
        public var action: String
        /// e.g. `iio:device0`, `hwmon1`, `event4`
        public var device: String
        /// `iio`, `hwmon` or `input`.
        public var subsystem: String = ""
        /// An input switch's event node (a lid, a tablet-mode switch, orientationd's own virtual
        /// one, a proximity switch): no accelerometer comes or goes with it.
        public var isInputSwitch = false

        public init(action: String, device: String, subsystem: String = "", isInputSwitch: Bool = false) {
            self.action = action
            self.device = device
            self.subsystem = subsystem
            self.isInputSwitch = isInputSwitch
        }
    }

    private let thread: OwnerThread

    public init(logger: Logger, onEvent: @escaping @Sendable (Event) -> Void) {
        thread = OwnerThread(name: "od-udev-monitor") { owner in UdevMonitor.run(owner, logger: logger, onEvent) }
    }

    /// Starts the monitor's thread and returns once its netlink socket is filtered and
    /// receiving, so that a device that appears after this returns is always reported (issue 31:
    /// returning when the thread was merely created lost every uevent sent before the thread got
    /// that far; under load, a sensor plugged in while the daemon started). When the monitor
    /// cannot be set up, that is logged (see the type's doc) and this returns all the same.
    public func start() async throws(SensorError) {
        do { try await thread.startWhenReady() } catch { throw .cannotStartThread(errno: error.errno) }
    }

    /// Stops watching and awaits the thread's end; the thread wakes at once (a pipe beside
    /// the udev socket), nothing blocks.
    public func stop() async {
        await thread.stop()
    }

    private static func run(_ owner: OwnerThread, logger: Logger, _ onEvent: @Sendable (Event) -> Void) {
        func unavailable(_ step: String, _ code: Int32) {
            logger.warning("hotplug monitoring unavailable: sensors that appear later are not noticed until a restart",
                           metadata: ["step": "\(step)", "error": "\(String(cString: strerror(code)))"])
        }
        guard let udev = udev_new() else { return unavailable("udev_new", errno) }
        defer { udev_unref(udev) }
        guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else { return unavailable("udev_monitor_new_from_netlink", errno) }
        defer { udev_monitor_unref(monitor) }
        var filtered = udev_monitor_filter_add_match_subsystem_devtype(monitor, "iio", nil)
        // hwmon: Apple's ambient light sensor (AuxiliaryDiscovery).
        if filtered >= 0 { filtered = udev_monitor_filter_add_match_subsystem_devtype(monitor, "hwmon", nil) }
        // input: accelerometers (InputAccelerometerDiscovery) and a proximity switch (EvdevProximitySwitch).
        if filtered >= 0 { filtered = udev_monitor_filter_add_match_subsystem_devtype(monitor, "input", nil) }
        guard filtered >= 0 else { return unavailable("udev_monitor_filter_add_match_subsystem_devtype", -filtered) }
        let enabled = udev_monitor_enable_receiving(monitor)
        guard enabled >= 0 else { return unavailable("udev_monitor_enable_receiving", -enabled) }
        // Listening from here on: the kernel (or umockdev) queues every uevent on the socket.
        owner.ready()
        var pollers = [pollfd(fd: udev_monitor_get_fd(monitor), events: Int16(POLLIN), revents: 0),
                       pollfd(fd: owner.wakeFD, events: Int16(POLLIN), revents: 0)]
        while !owner.isStopping {
            guard poll(&pollers, 2, -1) > 0, pollers[0].revents != 0 else { continue }
            if pollers[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                return unavailable("polling the udev monitor", EIO)
            }
            while let device = udev_monitor_receive_device(monitor) {
                let action = udev_device_get_action(device).map { String(cString: $0) } ?? ""
                let name = udev_device_get_sysname(device).map { String(cString: $0) } ?? ""
                let subsystem = udev_device_get_subsystem(device).map { String(cString: $0) } ?? ""
                func flag(_ property: String) -> Bool {
                    udev_device_get_property_value(device, property).map { String(cString: $0) } == "1"
                }
                // Input event nodes of an accelerometer or a switch (a proximity switch is one;
                // keyboards and mice are not, nor the inputN parents).
                let (accelerometer, inputSwitch) = (flag("ID_INPUT_ACCELEROMETER"), flag("ID_INPUT_SWITCH"))
                let inputSensor = name.hasPrefix("event") && (accelerometer || inputSwitch)
                udev_device_unref(device)
                // IIO devices whatever their name (umockdev testbeds name them freely) but
                // triggers; hwmon devices (a light sensor).
                let wanted = switch subsystem {
                case "iio": UdevDiscovery.isDevice(name)
                case "input": inputSensor
                default: true
                }
                if wanted { onEvent(Event(action: action, device: name, subsystem: subsystem, isInputSwitch: inputSwitch && !accelerometer)) }
            }
        }
    }
}
