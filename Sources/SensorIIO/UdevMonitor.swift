import CLibUdev
import Glibc
import Logging
import OwnerThreads

/// Watches udev for `iio` devices (and input-subsystem accelerometers) coming, going and
/// changing, on a thread of its own (the udev monitor handle never leaves it), and reports each
/// event through `onEvent`. A monitor that
/// cannot be set up (no netlink socket in a container, udev not running) is logged once with the
/// step that failed: the daemon goes on without hotplug, it does not fail.
public final class UdevMonitor: Sendable {
    public struct Event: Sendable, Hashable {
        /// `add`, `remove`, `change`, `bind`, …
        public var action: String
        /// e.g. `iio:device0`
        public var device: String
    }

    private let thread: OwnerThread

    public init(logger: Logger, onEvent: @escaping @Sendable (Event) -> Void) {
        thread = OwnerThread(name: "od-udev-monitor") { owner in UdevMonitor.run(owner, logger: logger, onEvent) }
    }

    public func start() throws(IIOError) {
        do { try thread.start() } catch { throw .cannotStartThread(errno: error.errno) }
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
        let filtered = udev_monitor_filter_add_match_subsystem_devtype(monitor, "iio", nil)
        guard filtered >= 0 else { return unavailable("udev_monitor_filter_add_match_subsystem_devtype", -filtered) }
        // Input-subsystem accelerometers too (issue 16); other input devices are ignored below.
        _ = udev_monitor_filter_add_match_subsystem_devtype(monitor, "input", nil)
        let enabled = udev_monitor_enable_receiving(monitor)
        guard enabled >= 0 else { return unavailable("udev_monitor_enable_receiving", -enabled) }
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
                let accelerometer = udev_device_get_property_value(device, "ID_INPUT_ACCELEROMETER").map { String(cString: $0) } == "1"
                let subsystem = udev_device_get_subsystem(device).map { String(cString: $0) }
                udev_device_unref(device)
                if (subsystem == "iio" && UdevDiscovery.isDevice(name)) || (name.hasPrefix("event") && accelerometer) {
                    onEvent(Event(action: action, device: name))
                }
            }
        }
    }
}
