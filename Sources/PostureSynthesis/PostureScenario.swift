import OrientationCore
import PostureCore

/// A scripted handling of a convertible with the posture events a careful user expects: one
/// entry of the posture detector's specification (``PostureScenarioCatalog``).
public struct PostureScenario: Sendable, CustomStringConvertible {
    /// An expected posture event.
    public struct Expectation: Hashable, Sendable {
        public var posture: Posture
        /// When the machine came to rest in this posture (the end of the deliberate move), or
        /// `nil` for the first decision of a stream. Latency is measured from here.
        public var restTime: Double?
        /// When the deliberate move began: the event must not come before it.
        public var moveStart: Double?
        /// The latency allowed after rest, when not ``PostureScenarioRun/latencyBudget``: only
        /// where the physics of the move say why (a fold in a quarter of a second turns each half
        /// by 120°, and the filters take about 0.6 s to call such a turn over).
        public var latencyBudget: Double?

        public init(_ posture: Posture, restTime: Double? = nil, moveStart: Double? = nil, latencyBudget: Double? = nil) {
            self.posture = posture
            self.restTime = restTime
            self.moveStart = moveStart
            self.latencyBudget = latencyBudget
        }
    }

    /// A lid switch (`SW_LID`) change the scenario feeds alongside the samples.
    public struct LidChange: Hashable, Sendable {
        public var time: Double
        /// `true` shut, `false` open, `nil` no switch.
        public var closed: Bool?

        public init(time: Double, closed: Bool?) {
            self.time = time
            self.closed = closed
        }
    }

    public var name: String
    public var script: ConvertibleScript
    public var expected: [Expectation]
    /// Lid switch changes, in time order (empty: the machine has none, or it is not wired).
    public var lidChanges: [LidChange]
    /// Hold reasons the detector must give at some point (the scenario is about them).
    public var expectedHolds: Set<PostureHold>
    public var seed: UInt64

    public init(_ name: String, script: ConvertibleScript, expected: [Expectation], lidChanges: [LidChange] = [],
                expectedHolds: Set<PostureHold> = [], seed: UInt64 = 1) {
        self.name = name
        self.script = script
        self.expected = expected
        self.lidChanges = lidChanges
        self.expectedHolds = expectedHolds
        self.seed = seed
    }

    public var description: String { name }
}
