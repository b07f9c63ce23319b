import Synchronization

/// Whether the pipeline is making progress, for the service manager's watchdog: a reader stuck
/// in the kernel (a `read()` or refill that never returns, so not even the stall timeout fires)
/// must stop the pings, so that systemd restarts the daemon.
///
/// The pipeline sets a deadline by which it must next report progress: while opening a sensor,
/// while reading (each sample moves it on), while waiting out a retry. With nothing claimed, or a
/// source that may legitimately fall silent (a replay), there is no deadline and the pipeline
/// counts as alive. Thread-safe; time is the monotonic clock (this is liveness, not detection).
public final class PipelineHealth: Sendable {
    private let deadline = Mutex<ContinuousClock.Instant?>(nil)

    public init() {}

    /// Progress is due within `seconds` (nil: none is due).
    public func expectProgress(within seconds: Double?) {
        let next = seconds.map { ContinuousClock.now.advanced(by: .clampedSeconds($0)) }
        deadline.withLock { $0 = next }
    }

    /// False once a deadline has passed without progress.
    public var isAlive: Bool {
        deadline.withLock { $0.map { ContinuousClock.now <= $0 } ?? true }
    }

    /// How overdue the pipeline is, in seconds (0 when alive).
    public var overdueSeconds: Double {
        deadline.withLock { deadline in
            guard let deadline else { return 0 }
            let late = ContinuousClock.now - deadline
            return late > .zero ? late.seconds : 0
        }
    }
}
