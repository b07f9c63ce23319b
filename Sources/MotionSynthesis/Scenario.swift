import OrientationCore

/// A scripted motion with the event sequence a careful user expects from it: one entry of the
/// detector's specification.
public struct Scenario: Sendable, CustomStringConvertible {
    /// An expected orientation event.
    public struct Expectation: Hashable, Sendable {
        public var orientation: DeviceOrientation
        /// When the device came to rest in this orientation (the end of the deliberate move), or
        /// `nil` for the first decision of a stream. Latency is measured from here.
        public var restTime: Double?
        /// When the deliberate move began: the event must not come before it.
        public var moveStart: Double?

        public init(_ orientation: DeviceOrientation, restTime: Double? = nil, moveStart: Double? = nil) {
            self.orientation = orientation
            self.restTime = restTime
            self.moveStart = moveStart
        }
    }

    /// What kind of motion this is, for grouping in reports.
    public enum Category: String, Sendable, CaseIterable {
        case still, noise, walking, drift, rotation, putDownPickUp = "put-down/pick-up", bed, shake, gaps
        /// Handling, not reading: screen-down swings while putting away or handing over.
        case handling
        /// One continuous movement through an intermediate orientation.
        case transit
        /// Short but real holds between movements.
        case briefHold = "brief hold"
        /// Running, jumping, a phone in a pocket.
        case vigorous
    }

    public var name: String
    public var category: Category
    public var script: MotionScript
    public var expected: [Expectation]
    /// Timestamp jitter, in periods (see ``MotionScript/samples(rate:gyroscope:jitter:gaps:seed:timeOffset:)``).
    public var jitter: Double = 0
    /// Intervals without samples.
    public var gaps: [ClosedRange<Double>] = []
    public var seed: UInt64 = 1

    public init(_ name: String, _ category: Category, script: MotionScript, expected: [Expectation],
                jitter: Double = 0, gaps: [ClosedRange<Double>] = [], seed: UInt64 = 1) {
        self.name = name
        self.category = category
        self.script = script
        self.expected = expected
        self.jitter = jitter
        self.gaps = gaps
        self.seed = seed
    }

    /// The samples at `rate` Hz, with or without a gyroscope.
    public func samples(rate: Double, gyroscope: Bool) -> [Sample] {
        script.samples(rate: rate, gyroscope: gyroscope, jitter: jitter, gaps: gaps, seed: seed, timeOffset: 0)
    }

    public var description: String { name }
}
