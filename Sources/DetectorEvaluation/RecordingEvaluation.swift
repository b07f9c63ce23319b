import OrientationCore

/// One recording run through a detector and scored: the unit of `orientationctl evaluate`.
public struct RecordingEvaluation: Sendable {
    /// The events the detector published, in order.
    public let events: [OrientationEvent]
    /// The recording's ground truth.
    public let truth: GroundTruth
    /// The events scored against the truth.
    public let score: EvaluationScore
    /// What the detector saw.
    public let statistics: OrientationDetector.Statistics

    /// Runs `samples` through a fresh detector with `configuration` (without the angular rates
    /// when `ignoreGyroscope`), then scores the events.
    ///
    /// - Throws: ``ConfigurationError`` when the configuration is invalid.
    public init(samples: [Sample], configuration: OrientationDetector.Configuration = .init(),
                ignoreGyroscope: Bool = false) throws(ConfigurationError) {
        var detector = try OrientationDetector(configuration: configuration)
        var events: [OrientationEvent] = []
        for var sample in samples {
            if ignoreGyroscope { sample.angularRate = nil }
            if let event = detector.process(sample) { events.append(event) }
        }
        self.init(samples: samples, events: events, statistics: detector.statistics)
    }

    /// Scores `events` that a detector already published for `samples` (a caller that ran it
    /// for more than the events, such as ``TimelinePlot``).
    init(samples: [Sample], events: [OrientationEvent], statistics: OrientationDetector.Statistics) {
        self.events = events
        truth = GroundTruth(samples: samples)
        score = EvaluationScore(events: events, truth: truth)
        self.statistics = statistics
    }
}
