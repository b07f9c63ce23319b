import SensorIIO
import Synchronization

/// Hands the udev monitor's events to the daemon's hotplug handler, which can only be made once
/// the pipeline, the light sensors and the D-Bus facade exist, while the monitor must listen
/// before the first discovery (issue 31: otherwise a sensor that appears between that discovery
/// and the monitor's start is neither found nor reported).
///
/// Contract: events delivered before ``connect(_:)`` wait, in order, and are handed to the handler
/// by `connect` itself; every event is handed to the handler exactly once and in the order the
/// monitor delivered it, even while `connect` drains the waiting ones (an event delivered then
/// joins the queue rather than overtaking it). The handler is never called under the relay's
/// lock. At most ``pendingLimit`` events wait (the oldest are dropped beyond that: the handler
/// rescans the devices, so the latest events carry what matters).
final class HotplugRelay: Sendable {
    typealias Handler = @Sendable (UdevMonitor.Event) -> Void

    /// Events kept while nothing handles them: a burst of uevents at boot is far smaller.
    static let pendingLimit = 256

    private struct State {
        var handler: Handler? = nil
        var pending: [UdevMonitor.Event] = []
        /// `connect` is handing the waiting events over: new ones queue behind them.
        var draining = false
    }

    private let state = Mutex(State())

    /// On the monitor's thread: handles `event` now, or keeps it for ``connect(_:)``.
    func deliver(_ event: UdevMonitor.Event) {
        let handler = state.withLock { state -> Handler? in
            guard let handler = state.handler, !state.draining else {
                state.pending.append(event)
                if state.pending.count > Self.pendingLimit { state.pending.removeFirst(state.pending.count - Self.pendingLimit) }
                return nil
            }
            return handler
        }
        handler?(event)
    }

    /// Sets the handler and hands it every event that waited, in order, on the calling thread
    /// (the daemon calls this on an owner thread: the handler enumerates udev). Call once.
    func connect(_ handler: @escaping Handler) {
        state.withLock { state in
            state.handler = handler
            state.draining = true
        }
        while true {
            let batch = state.withLock { state -> [UdevMonitor.Event] in
                defer { state.pending = [] }
                if state.pending.isEmpty { state.draining = false }
                return state.pending
            }
            if batch.isEmpty { return }
            for event in batch { handler(event) }
        }
    }
}
