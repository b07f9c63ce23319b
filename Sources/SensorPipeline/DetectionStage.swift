import OrientationCore
import SensorLifecycle
import Synchronization

/// What the pipeline does with each sample of one open sensor, run on the thread that read it
/// (a ``SampleConsumer``; issue 28): the scale check (``GravityNormalizer``), the tilt class
/// (``TiltTracker``), the ``OrientationDetector``, and the ``SampleRateGovernor`` whose pace goes
/// back to the reader.
///
/// Contract:
/// - What a sample changes goes to the pipeline's sink in sample order: a tilt class, an
///   orientation event, recorded light and proximity levels, in that order per sample.
/// - Nothing reaches the sink before ``start()``: the pipeline first says the sensor is open
///   (``SensorPipeline/Event/sensorActive(_:)``), then starts the stage, so a reader that
///   delivers at once cannot overtake that. What came before is handed over by ``start()``.
/// - The sink runs outside the stage's lock (``CallbackQueue``), on the reader's thread (or the
///   thread calling ``start()``): it must not block.
/// - Every sample moves the pipeline's ``PipelineHealth`` deadline on.
/// - With a ``SampleTap`` set, each sample (after the scale check) goes to it after the sink's
///   callbacks, and the reader waits no longer than the tap asks.
final class DetectionStage: SampleConsumer {
    private struct State {
        var detector: OrientationDetector
        var normalizer = GravityNormalizer()
        var tilt = TiltTracker()
        var governor: SampleRateGovernor
        var scaleWarned = false
    }

    private let state: Mutex<State>
    private let callbacks = CallbackQueue()
    private let started = Atomic<Bool>(false)
    private let sink: @Sendable (SensorPipeline.Event) -> Void
    private let health: PipelineHealth
    private let progressLimit: Double?
    /// Called (through the queue) the first time the normaliser rescales this stream.
    private let onScaleError: @Sendable (GravityNormalizer) -> Void
    /// A second reader of the samples (the posture's), if any.
    private let tap: SampleTap?

    init(detector: OrientationDetector, governor: SampleRateGovernor.Configuration, health: PipelineHealth, progressLimit: Double?,
         tap: SampleTap? = nil,
         sink: @escaping @Sendable (SensorPipeline.Event) -> Void, onScaleError: @escaping @Sendable (GravityNormalizer) -> Void) {
        state = Mutex(State(detector: detector, governor: SampleRateGovernor(configuration: governor.limited(gapReset: detector.configuration.gapReset))))
        self.sink = sink
        self.health = health
        self.progressLimit = progressLimit
        self.onScaleError = onScaleError
        self.tap = tap
    }

    func consume(_ raw: Sample) -> Double? {
        health.expectProgress(within: progressLimit)
        let (sample, interval) = state.withLock { state -> (Sample, Double?) in
            let sample = state.normalizer.normalize(raw)
            if state.normalizer.isCorrecting, !state.scaleWarned {
                state.scaleWarned = true
                let normalizer = state.normalizer
                callbacks.enqueue { [onScaleError] in onScaleError(normalizer) }
            }
            if let changed = state.tilt.process(sample) { callbacks.enqueue { [sink] in sink(.tilt(changed)) } }
            if let event = state.detector.process(sample) { callbacks.enqueue { [sink] in sink(.orientation(event)) } }
            if sample.light != nil || sample.proximity != nil {
                callbacks.enqueue { [sink] in sink(.recordedReadings(light: sample.light, proximity: sample.proximity)) }
            }
            state.governor.observe(sample, settled: state.detector.isSettled)
            return (sample, state.governor.interval)
        }
        if started.load(ordering: .acquiring) { callbacks.drain() }
        guard let tap, case .some(let asked) = tap.deliver(sample) else { return interval }
        // The faster of the two: full rate when either wants it.
        guard let interval, let asked else { return nil }
        return min(interval, asked)
    }

    /// Lets what samples change reach the sink, starting with what is already queued.
    func start() {
        started.store(true, ordering: .releasing)
        callbacks.drain()
    }

    /// Samples taken since the stage was made.
    var samples: Int { state.withLock { $0.detector.statistics.samples } }

    /// What the governor did.
    var governor: SampleRateGovernor.Statistics { state.withLock { $0.governor.statistics } }
}
