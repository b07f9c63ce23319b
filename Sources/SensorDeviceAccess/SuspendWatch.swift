/// Notices that the system slept since the last look (issue 10, item 7), from ``SystemClocks``:
/// the time spent suspended is how much `boottime − monotonic` grew.
///
/// Contract: ``sleptSinceLastCheck()`` returns the seconds slept when that growth exceeds
/// ``threshold``, once per suspend; otherwise `nil`. Two clock reads, no system call beyond
/// them: cheap enough for every refill.
package struct SuspendWatch {
    /// Shorter gaps are not worth a reopen (and no real suspend is that short).
    package static let threshold = 0.5
    private let clocks: SystemClocks
    private var asleep: Double

    package init(clocks: SystemClocks) {
        self.clocks = clocks
        let now = clocks.read()
        asleep = now.boottime - now.monotonic
    }

    package mutating func sleptSinceLastCheck() -> Double? {
        let now = clocks.read()
        let current = now.boottime - now.monotonic
        let slept = current - asleep
        asleep = current
        return slept > Self.threshold ? slept : nil
    }
}
