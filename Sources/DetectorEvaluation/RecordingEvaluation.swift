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
        var iterator = samples.makeIterator()
        do {
            try self.init(configuration: configuration, ignoreGyroscope: ignoreGyroscope) { iterator.next() }
        } catch let error as ConfigurationError {
            throw error
        } catch {
            fatalError("an array's iterator does not throw")
        }
    }

    /// Runs the samples `next` returns (until `nil`) through a ``GravityNormalizer`` and a fresh
    /// detector, as the daemon's pipeline does, scoring as they
    /// come: memory stays bounded by the events and the truth's runs, whatever the length (a
    /// ``GroundTruthBuilder`` keeps only the points scoring reads). The same score, events and
    /// statistics as ``init(samples:configuration:ignoreGyroscope:)`` on the same samples.
    ///
    /// - Throws: ``ConfigurationError`` for an invalid configuration; whatever `next` throws.
    public init(configuration: OrientationDetector.Configuration = .init(), ignoreGyroscope: Bool = false,
                samples next: () throws -> Sample?) throws {
        var detector = try OrientationDetector(configuration: configuration)
        var events: [OrientationEvent] = []
        var truth = GroundTruthBuilder()
        // As the daemon's pipeline: a log recorded with a wrong scale is judged as orientationd
        // would have published it (a correct one is untouched).
        var normalizer = GravityNormalizer()
        while var sample = try next() {
            sample = normalizer.normalize(sample)
            truth.add(sample)
            if ignoreGyroscope { sample.angularRate = nil }
            if let event = detector.process(sample) {
                events.append(event)
                truth.keepPoints(around: event.time)
            }
        }
        let built = truth.finish()
        self.events = events
        self.truth = built
        score = EvaluationScore(events: events, truth: built)
        statistics = detector.statistics
    }

    /// Scores `events` that a detector already published against `truth` (a caller that ran
    /// it for more than the events, such as ``TimelinePlot``).
    init(events: [OrientationEvent], truth: GroundTruth, statistics: OrientationDetector.Statistics) {
        self.events = events
        self.truth = truth
        score = EvaluationScore(events: events, truth: truth)
        self.statistics = statistics
    }
}
