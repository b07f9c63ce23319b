import CLibUdev
import Glibc
import Synchronization

/// Watches udev for `iio` devices coming, going and changing, on a thread of its own (the udev
/// monitor handle never leaves it), and reports each event through `onEvent`.
public final class UdevMonitor: @unchecked Sendable {
    // @unchecked: `thread` is set once in start() and used by stop(); `stopping` is a Mutex.
    public struct Event: Sendable, Hashable {
        /// `add`, `remove`, `change`, `bind`, …
        public var action: String
        /// e.g. `iio:device0`
        public var device: String
    }

    private let onEvent: @Sendable (Event) -> Void
    private let stopping = Mutex(false)
    private var thread: pthread_t?

    public init(onEvent: @escaping @Sendable (Event) -> Void) {
        self.onEvent = onEvent
    }

    public func start() throws(IIOError) {
        let box = Unmanaged.passRetained(self)
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { argument in
            let monitor = Unmanaged<UdevMonitor>.fromOpaque(argument!).takeRetainedValue()
            monitor.run()
            return nil
        }, box.toOpaque())
        guard result == 0 else {
            box.release()
            throw IIOError("cannot start the udev monitor thread")
        }
        thread = handle
    }

    public func stop() {
        stopping.withLock { $0 = true }
        if let thread {
            pthread_join(thread, nil)
            self.thread = nil
        }
    }

    private func run() {
        guard let udev = udev_new() else { return }
        defer { udev_unref(udev) }
        guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else { return }
        defer { udev_monitor_unref(monitor) }
        udev_monitor_filter_add_match_subsystem_devtype(monitor, "iio", nil)
        guard udev_monitor_enable_receiving(monitor) >= 0 else { return }
        var poller = pollfd(fd: udev_monitor_get_fd(monitor), events: Int16(POLLIN), revents: 0)
        while !stopping.withLock({ $0 }) {
            guard poll(&poller, 1, 200) > 0 else { continue }
            while let device = udev_monitor_receive_device(monitor) {
                let action = udev_device_get_action(device).map { String(cString: $0) } ?? ""
                let name = udev_device_get_sysname(device).map { String(cString: $0) } ?? ""
                udev_device_unref(device)
                if name.hasPrefix("iio:device") { onEvent(Event(action: action, device: name)) }
            }
        }
    }
}
