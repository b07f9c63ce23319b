import Synchronization

/// Runs callbacks one at a time, in the order they were queued, and never under the lock of the
/// code that queued them (issue 29: a callback, a logger write or a thread start under a lock
/// can deadlock or stall every thread that wants the lock).
///
/// Use: under your own lock, ``enqueue(_:)`` what the change must tell (so that the order of
/// the calls is the order of the changes); after releasing it, ``drain()``. Whichever thread
/// drains first runs everything queued, including what other threads queue meanwhile; the
/// others return at once, so no callback ever runs twice or out of order, and a callback that
/// queues more (or drains) from inside a callback only adds to the running drain.
///
/// Lock order: your lock, then this queue's (``enqueue(_:)`` under yours); never the reverse:
/// no callback runs under either.
public final class CallbackQueue: Sendable {
    public typealias Callback = @Sendable () -> Void

    private struct State {
        var queued: [Callback] = []
        var draining = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Queues `callback` (call under the lock that orders your changes).
    public func enqueue(_ callback: @escaping Callback) {
        state.withLock { $0.queued.append(callback) }
    }

    /// Runs what is queued, unless another thread already does (then it runs it). Call with no
    /// lock held.
    public func drain() {
        while true {
            let batch = state.withLock { state -> [Callback] in
                guard !state.draining, !state.queued.isEmpty else { return [] }
                state.draining = true
                defer { state.queued = [] }
                return state.queued
            }
            if batch.isEmpty { return }
            for callback in batch { callback() }
            state.withLock { $0.draining = false }
        }
    }
}
