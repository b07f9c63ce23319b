import CSensorProxyShim
import Glibc
import Logging
import OrientationCore
import OwnerThreads
import SensorProxyModel
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
/// - `onClaimChange` reports, per sensor, the first claim (`true`) and the last release
///   (`false`), with claims per unique bus name, released when a claimer leaves the bus; losing
///   the bus releases every claim. Claims are bounded per user and in all
///   (``SensorProxyClaims``); a claim past a bound, or one that cannot be tracked, is refused
///   with a D-Bus error, never by losing the connection (``SensorProxySession`` has the rules).
/// - Publishing never waits behind incoming calls: the thread handles at most
///   ``batchSize`` messages between two looks at the newest state.
/// - Starting it fixes glibc's mmap threshold at 128 KiB for the process (``start()``): a
///   message of up to the bus's 32 MB is read into a buffer that goes back to the system when
///   freed, instead of staying in the heap (issue 26).
/// - ``stop()`` closes the connection (the bus releases the name with it: no blocking
///   `ReleaseName` call) and returns once the thread has ended, without blocking a Swift
///   concurrency thread.
public final class SensorProxyBus: Sendable {
    private struct Shared {
        var state: SensorProxyState
        /// States not yet emitted, oldest first: each change is its own PropertiesChanged, so a
        /// client (monitor-sensor on a fast replay) sees every one, in order. Bounded: a bus
        /// thread that cannot keep up drops the oldest, never the current state.
        var unsent: [SensorProxyState] = []
        /// Sensors whose first reading since a claim is in `state` (``readingReady(_:)``).
        var ready: Set<ProxySensor> = []
    }

    private let shared: Mutex<Shared>
    /// Set before the thread starts (``start(onClaimChange:)``), read by it.
    private let onClaimChange: Mutex<@Sendable (ProxySensor, Bool) -> Void>
    private let logger: Logger
    private let limits: SensorProxyClaims.Limits
    /// Owns the sd-bus connection; its wake-up pipe says "a new state waits" (``publish(_:)``)
    /// and "stop".
    private let thread: Mutex<OwnerThread?> = Mutex(nil)

    /// Seconds a `ClaimAccelerometer` waits for the first orientation before it is answered
    /// anyway (docs/DBUS.md).
    public static let firstOrientationWait = 2.0
    /// Messages handled between two looks at the newest state.
    public static let batchSize: Int32 = 32

    public init(initial: SensorProxyState, limits: SensorProxyClaims.Limits = SensorProxyClaims.Limits(), logger: Logger,
                onClaimChange: @escaping @Sendable (ProxySensor, Bool) -> Void = { _, _ in }) {
        shared = Mutex(Shared(state: initial))
        self.logger = logger
        self.limits = limits
        self.onClaimChange = Mutex(onClaimChange)
    }

    /// The state the facade publishes (or will, once connected).
    public var state: SensorProxyState { shared.withLock { $0.state } }

    /// Starts the bus thread with claims reported to `onClaimChange` (instead of the one given to
    /// `init`): for a daemon whose sensors, which the claims go to, publish to this facade and so
    /// are made after it (issue 36). Call once. - Throws: when no thread can be created.
    public func start(onClaimChange: @escaping @Sendable (ProxySensor, Bool) -> Void) throws {
        self.onClaimChange.withLock { $0 = onClaimChange }
        try start()
    }

    /// Starts the bus thread. Call once. - Throws: when no thread can be created.
    public func start() throws {
        // Any user may send the daemon a message as large as the bus allows (32 MB); sd-bus reads
        // it into one buffer. glibc serves such a buffer with mmap and unmaps it when freed, but
        // the first such free raises its mmap threshold to the buffer's size (up to 32 MB), so the
        // next large message came from the heap and stayed there: 30 MB more RSS after a second
        // 30 MB call, never given back (issue 26). A fixed threshold (the default's 128 KiB)
        // turns the dynamic raise off; the daemon makes few allocations that large.
        od_fix_mmap_threshold()
        let owner = OwnerThread(name: "od-dbus") { [self] owner in run(owner) }
        thread.withLock { $0 = owner }
        do {
            try owner.start()
        } catch {
            throw SensorProxyBusError(step: "starting the D-Bus thread", errno: error.errno)
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
        if changed { thread.withLock { $0 }?.wake() }
    }

    /// Says that `sensor`'s first reading since its claim has been published (with
    /// ``publish(_:)``, before this call): the claims waiting for it are answered
    /// (`ClaimLight` and the others answer with a value already there, as the peer does).
    public func readingReady(_ sensor: ProxySensor) {
        shared.withLock { _ = $0.ready.insert(sensor) }
        thread.withLock { $0 }?.wake()
    }

    /// Closes the connection (which releases the name) and returns once the thread has ended,
    /// without blocking a thread.
    public func stop() async {
        await thread.withLock { $0 }?.stop()
    }

    // MARK: - The bus thread

    private func run(_ owner: OwnerThread) {
        var delay = 1.0
        var lastFailure: String? = nil
        while !owner.isStopping {
            var proxy: OpaquePointer? = nil
            var step: UnsafePointer<CChar>? = nil
            let session = SensorProxySession(limits: limits, logger: logger, onClaimChange: onClaimChange.withLock { $0 })
            let opened = withExtendedLifetime(session) { od_proxy_open(&proxy, session.callbacks, &step) }
            guard opened >= 0, let proxy else {
                let failure = SensorProxyBusError(step: step.map { String(cString: $0) } ?? "connecting", errno: -opened).description
                if failure != lastFailure {
                    logger.error("D-Bus facade unavailable; retrying", metadata: ["error": "\(failure)", "retry-in": "\(delay)s"])
                    lastFailure = failure
                }
                owner.sleep(until: OwnerThread.monotonic() + delay)
                delay = min(delay * 2, 30)
                continue
            }
            logger.notice("serving net.hadess.SensorProxy on the system bus")
            lastFailure = nil
            delay = 1
            session.proxy = proxy
            let lost = serve(session, proxy, owner)
            session.end()  // no claimer survives the connection
            od_proxy_free(proxy)
            session.proxy = nil
            if let lost {
                logger.error("lost the system bus; the socket keeps serving, reconnecting", metadata: ["error": "\(lost)"])
                owner.sleep(until: OwnerThread.monotonic() + delay)
            }
        }
    }

    /// Serves until stopped (`nil`) or the connection is lost (the reason).
    ///
    /// Each turn publishes the newest states first, then handles at most ``batchSize`` incoming
    /// messages: however many calls a client keeps in flight, a new orientation waits for one
    /// batch, not for the queue to drain (issue 18: a claim/release loop held PropertiesChanged
    /// back 2–10 s).
    private func serve(_ session: SensorProxySession, _ proxy: OpaquePointer, _ owner: OwnerThread) -> String? {
        while true {
            if owner.isStopping { return nil }
            // The states and the readiness taken together: a reading said ready is published
            // before the claims waiting for it are answered.
            let (states, ready) = shared.withLock { shared -> ([SensorProxyState], Set<ProxySensor>) in
                // A new connection starts from the current state; what was queued before is history.
                defer { shared.unsent = []; shared.ready = [] }
                return (session.published == nil ? [shared.state] : shared.unsent, shared.ready)
            }
            for state in states {
                let result = session.publish(state)
                if result < 0 { return SensorProxyBusError(step: "emitting PropertiesChanged", errno: -result).description }
            }
            session.sensorsReady(ready)
            let processed = od_proxy_process(proxy, Self.batchSize)
            if processed < 0 { return SensorProxyBusError(step: "reading the bus", errno: -processed).description }
            let held = session.expireHeld()
            if processed > 0 { continue }  // more may wait: publish first, then the next batch
            var pollers = [pollfd(fd: od_proxy_fd(proxy), events: od_proxy_events(proxy), revents: 0),
                           pollfd(fd: owner.wakeFD, events: Int16(POLLIN), revents: 0)]
            let busTimeout = od_proxy_timeout_ms(proxy)
            let timeout = held < 0 ? busTimeout : busTimeout < 0 ? held : min(held, busTimeout)
            _ = poll(&pollers, 2, timeout)
            if pollers[1].revents != 0 { owner.drainWakeups() }
        }
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
