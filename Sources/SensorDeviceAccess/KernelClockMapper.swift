/// Maps a device's kernel timestamps onto the monotonic clock the rest of the daemon uses.
///
/// The kernel stamps scans on the device's `current_timestamp_clock`, `realtime` by default: an
/// NTP step or a manual clock change jumps it by seconds or hours, and a detector fed those
/// stamps restarts its filters or waits out a long "gap". The reader asks for `monotonic`
/// (writing the sysfs attribute, where the driver has it); this mapper covers drivers and kernels
/// where that fails. It keeps the offset between a refill's arrival (monotonic) and its last
/// kernel stamp; small changes of that offset are delivery latency and are ignored, so the
/// spacing between samples stays the kernel's own; a change larger than ``stepThreshold``, or
/// any step that would take times back past the last one delivered, is a clock step, and the
/// offset is taken anew.
///
/// Contract: each mapped time is at least ``ArrivalClock/minimumSpacing`` (2 µs) after the one
/// before, so no two print as the same time in a recorded log; between clock steps they keep the
/// kernel's spacing exactly wherever it is at least that.
package struct KernelClockMapper: Sendable {
    /// A change of offset larger than this (seconds) is a step of the kernel's clock.
    package static let stepThreshold = 0.5
    private var offset: Double? = nil
    private var last = -Double.infinity
    /// How many steps were seen (for the log).
    package private(set) var steps = 0

    package init() {}

    /// Maps the kernel stamps (seconds) of one refill that arrived at `arrival` (monotonic
    /// seconds).
    package mutating func map(_ stamps: [Double], arrival: Double) -> [Double] {
        guard let newest = stamps.last else { return [] }
        let observed = arrival - newest
        if let current = offset {
            // A large change either way, or any step back past what was already delivered.
            if abs(observed - current) > Self.stepThreshold || (stamps.first! + current) <= last {
                offset = observed
                steps += 1
            }
        } else {
            offset = observed
        }
        let delta = offset!
        var result: [Double] = []
        result.reserveCapacity(stamps.count)
        for stamp in stamps {
            var time = stamp + delta
            // A step backwards inside a refill, a repeated stamp, or two closer than the log can
            // tell apart.
            if time < last + ArrivalClock.minimumSpacing { time = last + ArrivalClock.minimumSpacing }
            result.append(time)
            last = time
        }
        return result
    }
}
