import OrientationCore
import SensorIIO
import SensorLifecycle
import Synchronization

/// Hands the udev monitor's events to the daemon's hotplug handler, which can only be made once
/// the pipeline, the light sensors and the D-Bus facade exist, while the monitor must listen
/// before the first discovery (issue 31: otherwise a sensor that appears between that discovery
/// and the monitor's start is neither found nor reported).
///
/// Contract: events delivered before ``connect(_:)`` wait, in order; `connect` queues them for
/// the handler ahead of any event delivered after it. Every event reaches the handler exactly
/// once, in the order the monitor delivered it, one at a time and under no lock: the ordering
/// is ``CallbackQueue``'s, so a waiting event runs on the thread of `connect` or of a delivery
/// that overlaps it (both owner threads: the handler enumerates udev). At most
/// ``pendingLimit`` events wait (the oldest are dropped beyond that: the handler rescans the
/// devices, so the latest events carry what matters).
final class HotplugRelay: Sendable {
    typealias Handler = @Sendable (UdevMonitor.Event) -> Void

    /// Events kept while nothing handles them: a burst of uevents at boot is far smaller.
    static let pendingLimit = 256

    private struct State {
        var handler: Handler? = nil
        var pending: [UdevMonitor.Event] = []
    }

    private let state = Mutex(State())
    private let callbacks = CallbackQueue()

    /// On the monitor's thread: handles `event` now, or keeps it for ``connect(_:)``.
    func deliver(_ event: UdevMonitor.Event) {
        state.withLock { state in
            if let handler = state.handler {
                callbacks.enqueue { handler(event) }
                return
            }
            state.pending.append(event)
            if state.pending.count > Self.pendingLimit { state.pending.removeFirst(state.pending.count - Self.pendingLimit) }
        }
        callbacks.drain()
    }

    /// Sets the handler and hands it every event that waited, in order (the daemon calls this
    /// on an owner thread). Call once.
    func connect(_ handler: @escaping Handler) {
        state.withLock { state in
            state.handler = handler
            for event in state.pending { callbacks.enqueue { handler(event) } }
            state.pending = []
        }
        callbacks.drain()
    }
}
