/// Timestamps for buffered samples that carry none of their own (a device without an
/// `in_timestamp` scan element).
///
/// A refill delivers `count` samples at once; the last was taken at about the moment the refill
/// returned. The samples are spread evenly back from that moment, one estimated period apart, but
/// never back past the previous refill's last stamp. The period starts from the rate the driver
/// reports and follows the real rate from arrivals, so a driver that delivers faster or slower
/// than it claims (or than was requested) still gets stamps one real period apart.
///
/// Contract: every stamp is strictly greater than the one before, whatever the batch, the
/// refill timing and the driver's real rate; stamps never run ahead of the arrival time by more
/// than a microsecond per sample (only when arrivals themselves do not advance).
struct ArrivalClock: Sendable {
    /// The current estimate of the time between samples, seconds.
    private(set) var period: Double
    private var lastStamp = -Double.infinity
    private var lastArrival = -Double.infinity
    /// Arrivals further apart than this are a pause (a suspended device), not a rate.
    private let pause: Double

    /// - Parameter rate: the rate the driver reports (Hz), the first estimate.
    init(rate: Double) {
        period = 1 / min(max(rate.isFinite ? rate : 100, 0.1), 100_000)
        pause = 1.0
    }

    /// The stamps of `count` samples that arrived together at `arrival` (monotonic seconds).
    mutating func stamps(count: Int, arrival: Double) -> [Double] {
        guard count > 0 else { return [] }
        if lastArrival.isFinite {
            let gap = arrival - lastArrival
            if gap > 0, gap < pause {
                // Follow the real rate: an exponential average of the time per sample over
                // refills (one refill moves the estimate a fifth of the way).
                period += (gap / Double(count) - period) * 0.2
            }
        }
        lastArrival = arrival
        var start = arrival - Double(count - 1) * period
        var step = period
        if start <= lastStamp {
            // Faster than estimated (or a late refill): fit the batch between the last stamp
            // and the arrival.
            step = (arrival - lastStamp) / Double(count)
            start = lastStamp + step
            if step <= 0 {
                step = 1e-6
                start = lastStamp + step
            }
        }
        var result: [Double] = []
        result.reserveCapacity(count)
        for index in 0..<count { result.append(start + Double(index) * step) }
        lastStamp = result[count - 1]
        return result
    }
}
