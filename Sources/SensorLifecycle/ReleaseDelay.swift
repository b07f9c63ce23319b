/// How long a sensor stays open after its last claim goes: the one rule every sensor kind uses
/// (issue 18 for the accelerometer, issue 29 for light, proximity and compass).
///
/// A client toggling its claim (a D-Bus claim/release loop, a socket subscribe/unsubscribe
/// loop) must not open and close the sensor, and start a reader thread, once per toggle: the
/// sensor closes a delay after the last release (the owner's, e.g. 1 s), and a claim within that
/// time keeps the open sensor.
///
/// Contract (time in seconds on one monotonic clock, chosen by the caller):
/// - ``update(claimed:now:)`` records each claim change; a release is dated once, by the first
///   release after a claim (a second release does not extend the delay).
/// - ``remaining(after:now:)`` is `nil` while claimed, else the seconds until the sensor should
///   close (0 or less: close now).
public struct ReleaseDelay: Sendable, Equatable {
    /// When the last release came (`nil` while claimed, or before any claim).
    public private(set) var releasedAt: Double?
    /// Whether the last change was a claim.
    public private(set) var claimed = false

    public init() {}

    /// Someone claims (`true`) or nobody does (`false`), at `now`.
    public mutating func update(claimed: Bool, now: Double) {
        if claimed {
            releasedAt = nil
        } else if self.claimed || releasedAt == nil {
            releasedAt = now
        }
        self.claimed = claimed
    }

    /// Seconds until an open sensor should close, `delay` seconds after the last release: `nil`
    /// while claimed; 0 or less: now.
    public func remaining(after delay: Double, now: Double) -> Double? {
        guard !claimed else { return nil }
        return (releasedAt ?? now) + delay - now
    }
}
