import Glibc
import OwnerThreads
import Synchronization

/// The daemon's signals, taken synchronously by one thread (orientationd's main thread, which
/// has nothing else to do) and handed to async code as streams: no signal handler, and no
/// libdispatch (swift-service-lifecycle's `UnixSignalsSequence` runs its handlers on a dispatch
/// queue, and the first delivered signal started libdispatch's pool, whose monitor then woke the
/// daemon once a second for good; docs/PERFORMANCE.md, "An idle daemon").
///
/// Contract:
/// - ``block()`` runs first thing in `main`, before any other thread exists: threads inherit the
///   signal mask, so ``handled`` signals are only ever taken by ``waitForever()``.
/// - A signal goes to the stream last registered for it (``stream(_:)``). One that nobody
///   listens for (no stream yet, or its consumer has gone) gets its default action: the process
///   ends as it would without orientationd, so a SIGTERM during early startup or in a
///   short-lived command (`--check-config`) still ends it.
/// - With ``forceExit(afterShutdownTakesLongerThan:report:)`` set, shutdown is bounded and a
///   second request is obeyed at once (issue 22, item 4): after a SIGTERM or SIGINT has been
///   delivered, another SIGTERM or SIGINT ends the process immediately with status 128 + signal
///   (as the default action would), and a shutdown still running `limit` seconds after the
///   first ends it with status 1. Both are decided on the main thread, which needs no executor:
///   they work even when every event loop is stuck. `report` says which, before the exit.
public enum ProcessSignals {
    /// The signals orientationd takes itself: shutdown, reload, and the two it ignores.
    public static let handled: [Int32] = [SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2]

    private static let listeners = Mutex<[Int32: AsyncStream<Int32>.Continuation]>([:])

    private struct ShutdownBound: Sendable {
        let limit: Double
        let report: @Sendable (String) -> Void
    }

    private static let shutdownBound = Mutex<ShutdownBound?>(nil)

    /// Bounds shutdown (see the contract above). Call before the first SIGTERM may arrive.
    public static func forceExit(afterShutdownTakesLongerThan limit: Double, report: @escaping @Sendable (String) -> Void) {
        shutdownBound.withLock { $0 = ShutdownBound(limit: limit, report: report) }
    }

    private static var handledSet: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in handled { sigaddset(&set, signal) }
        return set
    }

    /// Blocks ``handled`` in the calling thread, and so in every thread it creates from now on.
    public static func block() {
        var set = handledSet
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Takes each ``handled`` signal as it arrives and delivers it. Never returns. Idle, it
    /// waits without a timeout; only while a bounded shutdown runs does it wake, at its deadline.
    public static func waitForever() -> Never {
        var set = handledSet
        var shutdownDeadline: Double? = nil
        while true {
            var signal: Int32 = 0
            if let deadline = shutdownDeadline, let bound = shutdownBound.withLock({ $0 }) {
                let remaining = deadline - OwnerThread.monotonic()
                if remaining <= 0 {
                    bound.report("orientationd did not finish shutting down within \(bound.limit) s; exiting now")
                    _exit(1)
                }
                var timeout = timespec(tv_sec: Int(remaining), tv_nsec: Int((remaining - remaining.rounded(.down)) * 1e9))
                let taken = sigtimedwait(&set, nil, &timeout)
                guard taken > 0 else { continue }  // the deadline (EAGAIN) or EINTR: check again
                signal = taken
                if signal == SIGTERM || signal == SIGINT {
                    bound.report("\(name(signal)) while shutting down: exiting now, without waiting for the shutdown to finish")
                    _exit(128 + signal)
                }
            } else {
                guard sigwait(&set, &signal) == 0 else { continue }
            }
            let delivered = deliver(signal)
            if delivered, signal == SIGTERM || signal == SIGINT, shutdownDeadline == nil,
               let bound = shutdownBound.withLock({ $0 }) {
                shutdownDeadline = OwnerThread.monotonic() + bound.limit
            }
        }
    }

    /// The signals `signals` from now on, each delivered to this stream (the last registered for
    /// a signal wins). Up to 8 undelivered ones are kept, the newest.
    public static func stream(_ signals: Int32...) -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream<Int32>.makeStream(bufferingPolicy: .bufferingNewest(8))
        listeners.withLock { listeners in
            for signal in signals { listeners[signal] = continuation }
        }
        return stream
    }

    /// `SIGTERM`, `SIGHUP`, …, for logs.
    public static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        case SIGUSR1: "SIGUSR1"
        case SIGUSR2: "SIGUSR2"
        default: "signal \(signal)"
        }
    }

    /// Hands `signal` to its stream; true when a listener took it.
    @discardableResult
    static func deliver(_ signal: Int32) -> Bool {
        let delivered = listeners.withLock { listeners -> Bool in
            guard let listener = listeners[signal] else { return false }
            // lock-ok: AsyncStream's yield only enqueues the waiting task (no code of ours runs),
            // and its result decides whether the listener stays in the table this lock guards.
            if case .terminated = listener.yield(signal) {
                listeners[signal] = nil
                return false
            }
            return true
        }
        guard !delivered else { return true }
        // Nobody listens: the default action, as if orientationd had never blocked it.
        Glibc.signal(signal, SIG_DFL)
        var one = sigset_t()
        sigemptyset(&one)
        sigaddset(&one, signal)
        pthread_sigmask(SIG_UNBLOCK, &one, nil)
        raise(signal)
        // Only a signal whose default is to be ignored gets here; keep taking it.
        pthread_sigmask(SIG_BLOCK, &one, nil)
        return false
    }
}
