/// How ``OrientationClient/updates(reconnect:sensorChanges:topics:)`` retries: exponential backoff with jitter.
public struct ReconnectPolicy: Hashable, Sendable {
    /// Delay before the first retry, seconds.
    public var initialDelay: Double
    /// Longest delay between retries, seconds.
    public var maximumDelay: Double
    /// Each failed attempt multiplies the delay by this.
    public var multiplier: Double
    /// Give up after this many consecutive failed attempts (`nil`: never).
    public var maximumAttempts: Int?

    public init(initialDelay: Double = 0.1, maximumDelay: Double = 5, multiplier: Double = 2, maximumAttempts: Int? = nil) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = multiplier
        self.maximumAttempts = maximumAttempts
    }

    /// Retry forever: what a desktop session wants.
    public static let `default` = ReconnectPolicy()
    /// Never retry: one connection, and the stream ends when it does.
    public static let never = ReconnectPolicy(maximumAttempts: 0)

    /// The delay before retry number `attempt` (1-based), with ±20 % jitter so a restarted daemon
    /// is not hit by every client at the same instant.
    public func delay(attempt: Int, random: Double) -> Double {
        var delay = initialDelay
        for _ in 1..<max(attempt, 1) { delay = min(delay * multiplier, maximumDelay) }
        return min(delay, maximumDelay) * (0.8 + 0.4 * random)
    }
}
