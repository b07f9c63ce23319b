/// Lets a repeated log line through at most once per interval, counting the ones held back, so
/// a client that provokes it thousands of times a second cannot flood the journal (issue 9: the
/// socket's refusals; issue 18: D-Bus claims and refusals).
///
/// Pure: the caller passes the time (seconds on any monotonic clock).
public struct LogThrottle: Sendable {
    public let interval: Double
    private var lastLogged: Double? = nil
    private var suppressed = 0

    public init(interval: Double = 10) {
        self.interval = interval
    }

    /// Whether to log now (at `now`, seconds, monotonic) and how many were held back since the
    /// last one that was logged.
    public mutating func admit(now: Double) -> (log: Bool, suppressed: Int) {
        if let lastLogged, now - lastLogged < interval {
            suppressed += 1
            return (false, 0)
        }
        defer { suppressed = 0 }
        lastLogged = now
        return (true, suppressed)
    }
}
