import SensorLog

/// Timestamps for buffered samples that carry none of their own (a device without an
/// `in_timestamp` scan element).
///
/// A refill delivers `count` samples at once; the last was taken at about the moment the refill
/// returned. The samples are spread evenly back from that moment, one estimated period apart, but
/// never back past the previous refill's last stamp. The period starts from the rate the driver
/// reports and follows the real rate from arrivals, so a driver that delivers faster or slower
/// than it claims (or than was requested) still gets stamps one real period apart.
///
/// The real rate is measured as all samples delivered over all the time since the first refill
/// (leaving out pauses), not per refill: a reader thread that was starved (a loaded
/// machine) finds the kernel's buffer full and gets many refills back to back, microseconds
/// apart, which per refill look like a rate of megahertz; over the whole run they average out.
///
/// Contract: every stamp is at least ``minimumSpacing`` after the one before, whatever the
/// batch, the refill timing and the driver's real rate; stamps run ahead of the arrival time by
/// at most ``minimumSpacing`` per sample delivered faster than that (a burst after a starved
/// reader, or arrivals that do not advance).
package struct ArrivalClock: Sendable {
    /// The least spacing of two stamps: twice the recorded log's resolution
    /// (``SensorLogWriter/timeResolution``, 6 decimals), so consecutive stamps never print as
    /// the same time, whatever the rounding. Spreading a burst's few microseconds over a batch
    /// gave stamps 0.4 µs apart (issue 22, item 13).
    package static let minimumSpacing = 2 * SensorLogWriter.timeResolution

    /// The current estimate of the time between samples, seconds.
    private(set) var period: Double
    /// The reported period: the estimate's prior.
    private let prior: Double
    private var lastStamp = -Double.infinity
    private var lastArrival = -Double.infinity
    /// The time and the samples the rate is measured over.
    private var measuredTime = 0.0
    private var measuredSamples = 0
    /// After a pause, until a refill has to wait for its batch again: what arrives was taken
    /// during the pause, over an unknown time, so it does not count.
    private var draining = true
    /// Arrivals further apart than this are a pause (a suspended device), not a rate.
    private let pause: Double
    /// The reported period counts as this many samples of measurement, so a few early refills
    /// cannot swing the estimate.
    private static let priorWeight = 2.0
    /// Refills faster than this per sample (seconds) drain a backlog (a burst is a few µs).
    private static let backlogPace = 0.0005

    /// - Parameter rate: the rate the driver reports (Hz), the first estimate.
    package init(rate: Double) {
        period = 1 / min(max(rate.isFinite ? rate : 100, 0.1), 100_000)
        prior = period
        pause = 1.0
    }

    /// The stamps of `count` samples that arrived together at `arrival` (monotonic seconds).
    package mutating func stamps(count: Int, arrival: Double) -> [Double] {
        guard count > 0 else { return [] }
        measure(count: count, arrival: arrival)
        var start = arrival - Double(count - 1) * period
        var step = period
        if start < lastStamp + Self.minimumSpacing {
            // Faster than estimated, a late refill or a burst: fit the batch between the last
            // stamp and the arrival, no closer than the minimum spacing.
            step = max((arrival - lastStamp) / Double(count), Self.minimumSpacing)
            start = lastStamp + step
        }
        var result: [Double] = []
        result.reserveCapacity(count)
        for index in 0..<count { result.append(start + Double(index) * step) }
        lastStamp = result[count - 1]
        return result
    }

    /// Follows the real rate: the samples delivered over the time they took, since the clock
    /// began, with the prior counted as a few samples. A gap longer than ``pause`` (or a clock
    /// that went back) is left out, with the refills that follow it back to back (the backlog of
    /// a reader starved that long): their samples were taken during the gap.
    private mutating func measure(count: Int, arrival: Double) {
        defer { lastArrival = arrival }
        let gap = arrival - lastArrival
        guard lastArrival.isFinite, gap >= 0, gap < pause else {
            draining = true
            return
        }
        if draining {
            // A refill that returned in less than a quarter of its batch's time was waiting in
            // the kernel's buffer; so was one faster than 0.5 ms a sample (2 kHz), whatever the
            // estimate: a driver far faster than it claims is not a backlog.
            if gap < min(0.25 * period, Self.backlogPace) * Double(count) { return }
            draining = false
        }
        measuredTime += gap
        measuredSamples += count
        period = (measuredTime + prior * Self.priorWeight) / (Double(measuredSamples) + Self.priorWeight)
        period = min(max(period, 1 / 100_000), 10)
    }
}
