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
    /// What the rate governor did (all zero when it was off).
    public let governor: SampleRateGovernor.Statistics

    /// Runs `samples` through a fresh detector with `configuration` (without the angular rates
    /// when `ignoreGyroscope`), then scores the events.
    ///
    /// - Throws: ``ConfigurationError`` when the configuration is invalid.
    public init(samples: [Sample], configuration: OrientationDetector.Configuration = .init(),
                ignoreGyroscope: Bool = false, governor: SampleRateGovernor.Configuration = .off,
                shortTilts: Double = 0) throws(ConfigurationError) {
        var iterator = samples.makeIterator()
        do {
            try self.init(configuration: configuration, ignoreGyroscope: ignoreGyroscope, governor: governor,
                          shortTilts: shortTilts) { iterator.next() }
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
    /// statistics as ``init(samples:configuration:ignoreGyroscope:governor:shortTilts:)`` on the same samples.
    ///
    /// With a `governor` (``SampleRateGovernor``), the detector sees only the samples a reader
    /// slowed by it would have taken, as the daemon reads a polled sensor; the truth still comes
    /// from every sample.
    ///
    /// With `shortTilts` > 0 the truth drops its runs shorter than that between two runs of one
    /// label (``GroundTruth/withoutShortTilts(shorterThan:)``, issue 41).
    ///
    /// - Throws: ``ConfigurationError`` for an invalid configuration; whatever `next` throws.
    public init(configuration: OrientationDetector.Configuration = .init(), ignoreGyroscope: Bool = false,
                governor: SampleRateGovernor.Configuration = .off, shortTilts: Double = 0,
                samples next: () throws -> Sample?) throws {
        var detector = try OrientationDetector(configuration: configuration)
        var pace = SampleRateGovernor(configuration: governor)
        var events: [OrientationEvent] = []
        var truth = GroundTruthBuilder()
        // As the daemon's pipeline: a log recorded with a wrong scale is judged as orientationd
        // would have published it (a correct one is untouched).
        var normalizer = GravityNormalizer()
        while var sample = try next() {
            sample = normalizer.normalize(sample)
            truth.add(sample)
            if ignoreGyroscope { sample.angularRate = nil }
            guard pace.admits(sample) else { continue }
            if let event = detector.process(sample) {
                events.append(event)
                truth.keepPoints(around: event.time)
            }
            pace.observe(sample, settled: detector.isSettled)
        }
        let built = truth.finish().withoutShortTilts(shorterThan: shortTilts)
        self.events = events
        self.truth = built
        score = EvaluationScore(events: events, truth: built)
        statistics = detector.statistics
        self.governor = pace.statistics
    }

    /// Scores `events` that a detector already published against `truth` (a caller that ran
    /// it for more than the events, such as ``TimelinePlot``).
    init(events: [OrientationEvent], truth: GroundTruth, statistics: OrientationDetector.Statistics,
         governor: SampleRateGovernor.Statistics = .init()) {
        self.events = events
        self.truth = truth
        score = EvaluationScore(events: events, truth: truth)
        self.statistics = statistics
        self.governor = governor
    }
}
