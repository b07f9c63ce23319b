/// Puts the two accelerometers' readings in time order for ``PostureDetector``, which wants them
/// merged (docs/ARCHITECTURE.md §11). Each sensor has a reader thread of its own and delivers in
/// batches (a buffered one a batch per wake-up), so the two arrive interleaved out of order; the
/// merger holds a reading back until the other sensor has reached its time.
///
/// Contract:
/// - ``push(_:)`` returns the readings that are now safe to hand on, in time order: those no later
///   than the older of the two sensors' newest readings. A sensor that has delivered nothing yet
///   holds nothing back (a machine whose hinge angle stands in for the base accelerometer has
///   none), and one silent for `maximumLag` seconds of the other's time holds it back by that
///   much at most (it stopped, or the machine has it no longer).
/// - A reading older than what was already handed on (a sensor whose clock went back, a reopened
///   reader) is handed on at once: the detector restarts that sensor's filter, as its contract says.
/// - At most `capacity` readings are held: beyond that the oldest go out, so a stalled sensor
///   costs bounded memory.
/// - Time comes only from the readings.
public struct PostureSampleMerger: Sendable {
    public let maximumLag: Double
    public let capacity: Int
    private var held: [PostureSample] = []
    private var newest: [PostureSample.Location: Double] = [:]
    private var released = -Double.infinity

    /// - Parameter maximumLag: seconds; the detector's `pairing-window` is the natural value (a
    ///   reading older than that pairs with nothing anyway).
    public init(maximumLag: Double, capacity: Int = 1024) {
        self.maximumLag = maximumLag
        self.capacity = max(1, capacity)
    }

    /// Readings held back now.
    public var heldCount: Int { held.count }

    /// Takes one reading; returns those that can go to the detector now, oldest first.
    public mutating func push(_ sample: PostureSample) -> [PostureSample] {
        guard sample.time.isFinite else { return [sample] }  // the detector counts and drops it
        if sample.time < released { return [sample] }
        newest[sample.location] = max(newest[sample.location] ?? -.infinity, sample.time)
        // Insert in order (readings mostly arrive in order: search from the end).
        var index = held.endIndex
        while index > held.startIndex, held[index - 1].time > sample.time { index -= 1 }
        held.insert(sample, at: index)
        let display = newest[.display] ?? .infinity, base = newest[.base] ?? .infinity
        let newestOfBoth = max(display == .infinity ? -.infinity : display, base == .infinity ? -.infinity : base)
        let horizon = max(min(display, base), newestOfBoth - maximumLag)
        var count = 0
        while count < held.count, held[count].time <= horizon { count += 1 }
        if held.count - count > capacity { count = held.count - capacity }
        guard count > 0 else { return [] }
        let out = Array(held[..<count])
        held.removeFirst(count)
        released = max(released, out[out.count - 1].time)
        return out
    }

    /// Hands on everything held (a sensor closed), oldest first, and forgets both sensors.
    public mutating func flush() -> [PostureSample] {
        let out = held
        held = []
        newest = [:]
        return out
    }
}
