import OrientationCore

/// How the daemon's timers wait: the pipeline's back-off after a sensor failure, replay pacing,
/// the watchdog's period and its event-loop probe.
///
/// The default, ``task``, is `Task.sleep`. A delayed job goes through Swift's global executor,
/// which on Linux is libdispatch even when SwiftNIO's loops run every other job, and the first
/// one starts libdispatch's worker pool, whose monitor then wakes the process once a second for
/// as long as it lives (measured in docs/PERFORMANCE.md, "An idle daemon"). The daemon therefore
/// runs its tasks on SwiftNIO's event loops and passes a sleeper on those loops
/// (`Sleeper.onEventLoops`, declared in OrientationDaemon); tests and tools keep ``task``.
///
/// Contract: ``sleep(seconds:)`` returns after about `seconds` (clamped as
/// ``SecondsConversion/clamped(_:)``), and throws `CancellationError` when the calling task is
/// cancelled, before or during the wait, as `Task.sleep` does.
public struct Sleeper: Sendable {
    private let body: @Sendable (Double) async throws -> Void

    /// A sleeper that waits with `body`, which must honour the contract above.
    public init(_ body: @escaping @Sendable (Double) async throws -> Void) {
        self.body = body
    }

    /// Waits `seconds`; throws `CancellationError` if the task is cancelled.
    public func sleep(seconds: Double) async throws {
        try await body(SecondsConversion.clamped(seconds))
    }

    /// `Task.sleep` on Swift's global executor.
    public static let task = Sleeper { seconds in try await Task.sleep(for: .clampedSeconds(seconds)) }
}
