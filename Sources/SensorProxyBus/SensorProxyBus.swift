import CSensorProxyShim
import Glibc
import Logging
import OrientationCore
import Synchronization

/// The net.hadess.SensorProxy facade: iio-sensor-proxy's D-Bus API, served from orientationd's
/// state, so GNOME (mutter), KDE (KWin), phosh and every other iio-sensor-proxy client rotate
/// with orientationd's detector unchanged (issue 7; docs/DBUS.md).
///
/// Contract:
/// - The sd-bus connection lives on one detached thread of its own, created, used and freed
///   there; other threads only hand it a new state (``publish(_:)``) through a lock and a wake-up
///   pipe, never touching sd-bus.
/// - The system bus comes from `DBUS_SYSTEM_BUS_ADDRESS` (else the default). Connecting, taking
///   the name (root only, by policy; a running iio-sensor-proxy holds it) and a bus that goes
///   away are logged and retried with a growing delay (1 s to 30 s); the daemon and its socket go
///   on either way.
/// - `onClaimChange` reports the first accelerometer claim (`true`) and the last release
///   (`false`), with claims per unique bus name, released when a claimer leaves the bus; losing
///   the bus releases every claim.
/// - ``stop()`` releases the name, closes the connection and returns once the thread has ended,
///   without blocking a Swift concurrency thread.
public final class SensorProxyBus: Sendable {
    private struct Shared {
        var state: SensorProxyState
        /// States not yet emitted, oldest first: each change is its own PropertiesChanged, so a
        /// client (monitor-sensor on a fast replay) sees every one, in order. Bounded: a bus
        /// thread that cannot keep up drops the oldest, never the current state.
        var unsent: [SensorProxyState] = []
        var stopping = false
        var finished = false
        var started = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let shared: Mutex<Shared>
    private let onClaimChange: @Sendable (Bool) -> Void
    private let logger: Logger
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// What the thread last reported through `onClaimChange` (only the thread touches it).
    private let claimed = Atomic<Bool>(false)

    public init(initial: SensorProxyState, logger: Logger, onClaimChange: @escaping @Sendable (Bool) -> Void) {
        shared = Mutex(Shared(state: initial))
        self.logger = logger
        self.onClaimChange = onClaimChange
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
    }

    deinit {
        if wakeRead >= 0 { close(wakeRead) }
        if wakeWrite >= 0 { close(wakeWrite) }
    }

    /// The state the facade publishes (or will, once connected).
    public var state: SensorProxyState { shared.withLock { $0.state } }

    /// Starts the bus thread. - Throws: when no thread can be created.
    public func start() throws {
        let retained = Unmanaged.passRetained(self)
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        shared.withLock { $0.started = true }
        let result = pthread_create(&thread, &attributes, { argument in
            let bus = Unmanaged<SensorProxyBus>.fromOpaque(argument!).takeRetainedValue()
            bus.run()
            bus.finish()
            return nil
        }, retained.toOpaque())
        guard result == 0 else {
            retained.release()
            shared.withLock { $0.started = false }
            throw SensorProxyBusError(step: "starting the D-Bus thread", errno: result)
        }
    }

    /// At most this many changes wait for the bus thread; older ones are dropped.
    static let unsentLimit = 64

    /// Changes the published state (any thread); the bus thread emits `PropertiesChanged` for
    /// each change, in order.
    public func publish(_ change: (inout SensorProxyState) -> Void) {
        let changed = shared.withLock { shared -> Bool in
            let before = shared.state
            change(&shared.state)
            guard shared.state != before else { return false }
            shared.unsent.append(shared.state)
            if shared.unsent.count > Self.unsentLimit { shared.unsent.removeFirst(shared.unsent.count - Self.unsentLimit) }
            return true
        }
        if changed { wake() }
    }

    /// Releases the name and closes the connection; returns once the thread has ended.
    public func stop() async {
        shared.withLock { $0.stopping = true }
        wake()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = shared.withLock { shared -> Bool in
                if shared.finished || !shared.started { return true }
                shared.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    private func wake() {
        var one: UInt8 = 1
        _ = write(wakeWrite, &one, 1)  // non-blocking: a full pipe is already readable
    }

    private var isStopping: Bool { shared.withLock { $0.stopping } }

    private func finish() {
        let waiters = shared.withLock { shared -> [CheckedContinuation<Void, Never>] in
            shared.finished = true
            defer { shared.waiters = [] }
            return shared.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    // MARK: - The bus thread

    private func run() {
        var delay = 1.0
        var lastFailure: String? = nil
        while !isStopping {
            var proxy: OpaquePointer? = nil
            var step: UnsafePointer<CChar>? = nil
            let context = Unmanaged.passUnretained(self).toOpaque()
            let opened = od_proxy_open(&proxy, { context, claimed in
                Unmanaged<SensorProxyBus>.fromOpaque(context!).takeUnretainedValue().claimChanged(claimed != 0)
            }, context, &step)
            guard opened >= 0, let proxy else {
                let failure = SensorProxyBusError(step: step.map { String(cString: $0) } ?? "connecting", errno: -opened).description
                if failure != lastFailure {
                    logger.error("D-Bus facade unavailable; retrying", metadata: ["error": "\(failure)", "retry-in": "\(delay)s"])
                    lastFailure = failure
                }
                waitForWake(seconds: delay)
                delay = min(delay * 2, 30)
                continue
            }
            logger.notice("serving net.hadess.SensorProxy on the system bus")
            lastFailure = nil
            delay = 1
            let lost = serve(proxy)
            claimChanged(false)  // no claimer survives the connection
            od_proxy_free(proxy)
            if let lost {
                logger.error("lost the system bus; the socket keeps serving, reconnecting", metadata: ["error": "\(lost)"])
                waitForWake(seconds: delay)
            }
        }
    }

    /// Serves until stopped (`nil`) or the connection is lost (the reason).
    private func serve(_ proxy: OpaquePointer) -> String? {
        var published: SensorProxyState? = nil
        while true {
            let (states, stopping) = shared.withLock { shared -> ([SensorProxyState], Bool) in
                // A new connection starts from the current state; what was queued before is history.
                defer { shared.unsent = [] }
                return (published == nil ? [shared.state] : shared.unsent, shared.stopping)
            }
            if stopping { return nil }
            for state in states where state != published {
                let result = od_proxy_set_state(proxy, state.hasAccelerometer ? 1 : 0, state.orientation, state.tilt)
                if result < 0 { return SensorProxyBusError(step: "emitting PropertiesChanged", errno: -result).description }
                published = state
            }
            let processed = od_proxy_process(proxy)
            if processed < 0 { return SensorProxyBusError(step: "reading the bus", errno: -processed).description }
            var pollers = [pollfd(fd: od_proxy_fd(proxy), events: od_proxy_events(proxy), revents: 0),
                           pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            _ = poll(&pollers, 2, od_proxy_timeout_ms(proxy))
            if pollers[1].revents != 0 { drainWakeups() }
        }
    }

    private func waitForWake(seconds: Double) {
        var poller = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
        let deadline = monotonic() + seconds
        while !isStopping {
            let remaining = deadline - monotonic()
            guard remaining > 0 else { return }
            _ = poll(&poller, 1, Int32((remaining * 1000).rounded(.up)))
            drainWakeups()
        }
    }

    private func drainWakeups() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &buffer, buffer.count) > 0 {}
    }

    private func claimChanged(_ claimed: Bool) {
        guard self.claimed.exchange(claimed, ordering: .acquiringAndReleasing) != claimed else { return }
        logger.info(claimed ? "accelerometer claimed over D-Bus" : "last D-Bus claim released")
        onClaimChange(claimed)
    }

    private func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9
    }
}

/// A step of the D-Bus facade that failed, with the errno sd-bus returned.
public struct SensorProxyBusError: Error, CustomStringConvertible {
    public let step: String
    public let errno: Int32

    public var description: String {
        let hint = switch errno {
        case EEXIST: " (another service, such as iio-sensor-proxy, owns net.hadess.SensorProxy)"
        case EACCES, EPERM: " (the bus policy does not let this user own net.hadess.SensorProxy: install net.hadess.SensorProxy.conf)"
        case ENOENT, ECONNREFUSED: " (no system bus at DBUS_SYSTEM_BUS_ADDRESS or the default path)"
        default: ""
        }
        return "\(step): \(String(cString: strerror(errno)))\(hint)"
    }
}
