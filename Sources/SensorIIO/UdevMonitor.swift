import CLibUdev
import Glibc

/// Watches udev for `iio` devices coming, going and changing, on a thread of its own (the udev
/// monitor handle never leaves it), and reports each event through `onEvent`.
public final class UdevMonitor: Sendable {
    public struct Event: Sendable, Hashable {
        /// `add`, `remove`, `change`, `bind`, …
        public var action: String
        /// e.g. `iio:device0`
        public var device: String
    }

    private let thread: OwnerThread

    public init(onEvent: @escaping @Sendable (Event) -> Void) {
        thread = OwnerThread { owner in UdevMonitor.run(owner, onEvent) }
    }

    public func start() throws(IIOError) {
        try thread.start()
    }

    /// Stops watching and awaits the thread's end; the thread wakes at once (a pipe beside
    /// the udev socket), nothing blocks.
    public func stop() async {
        await thread.stop()
    }

    private static func run(_ owner: OwnerThread, _ onEvent: @Sendable (Event) -> Void) {
        guard let udev = udev_new() else { return }
        defer { udev_unref(udev) }
        guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else { return }
        defer { udev_monitor_unref(monitor) }
        udev_monitor_filter_add_match_subsystem_devtype(monitor, "iio", nil)
        guard udev_monitor_enable_receiving(monitor) >= 0 else { return }
        var pollers = [pollfd(fd: udev_monitor_get_fd(monitor), events: Int16(POLLIN), revents: 0),
                       pollfd(fd: owner.wakeFD, events: Int16(POLLIN), revents: 0)]
        while !owner.isStopping {
            guard poll(&pollers, 2, -1) > 0, pollers[0].revents != 0 else { continue }
            while let device = udev_monitor_receive_device(monitor) {
                let action = udev_device_get_action(device).map { String(cString: $0) } ?? ""
                let name = udev_device_get_sysname(device).map { String(cString: $0) } ?? ""
                udev_device_unref(device)
                if name.hasPrefix("iio:device") { onEvent(Event(action: action, device: name)) }
            }
        }
    }
}
