import OrientationCore

/// A source of samples in the canonical frame: a recorded log (``ReplaySource``) or a real IIO
/// sensor (SensorIIO). The pipeline opens it when the first client subscribes and closes it when
/// the last one leaves.
///
/// Contract: ``open()`` acquires the sensor and returns a stream owned by the caller's task;
/// closing the stream (or dropping it) releases the sensor. Samples from one stream have
/// increasing timestamps. A replay resumes where the previous stream stopped.
public protocol SensorSource: Sendable {
    /// A name for logs and for `get` replies, e.g. `replay:handheld.log`.
    var name: String { get }
    /// Opens the sensor; its stream returns the samples.
    func open() async throws -> any SampleStream
    /// Opens the sensor with `consumer` taking every sample on the thread that reads it
    /// (``SampleDelivery``); the stream's ``SampleStream/next()`` then returns no sample, only
    /// the end (`nil`) or the failure (a throw). A source that reads on a thread of its own
    /// should honour the wait the consumer returns where it can (a polled reader sleeps that
    /// long). `nil`: as ``open()``. Default: ``open()``'s samples handed to the consumer in the
    /// awaiting task.
    func open(consumer: (any SampleConsumer)?) async throws -> any SampleStream
    /// How the pipeline paces this source's reader (``SampleRateGovernor``). Default: off (every
    /// sample at the source's own rate: a replay, a test's source).
    var rateGovernor: SampleRateGovernor.Configuration { get }
    /// Whether there is a sensor to open now, without opening it (the D-Bus facade's
    /// `HasAccelerometer`, which desktops read before they claim). Default: true.
    func isPresent() async -> Bool
    /// Whether the last ``open()`` failed because there is no such sensor at all (rather than
    /// a broken one), without asking discovery again: synchronous, for the pipeline's event
    /// sink. Default: false.
    var lastOpenFoundNoSensor: Bool { get }
    /// The longest wait, in seconds, for the next sample (or for `open()`) that still means the
    /// source works; past it the watchdog stops its pings (``PipelineHealth``). `nil`: the source
    /// may fall silent for any time (a replay). Default: 10 s.
    var progressLimit: Double? { get }
}

extension SensorSource {
    public func open(consumer: (any SampleConsumer)?) async throws -> any SampleStream {
        let stream = try await open()
        guard let consumer else { return stream }
        return ConsumingStream(stream, consumer: consumer)
    }
    public var rateGovernor: SampleRateGovernor.Configuration { .off }
    public func isPresent() async -> Bool { true }
    public var lastOpenFoundNoSensor: Bool { false }
    public var progressLimit: Double? { 10 }
}

/// Samples from an open sensor. Not `Sendable`: it belongs to the task that opened it, so the
/// handle behind it (a file, a libiio buffer) never crosses between tasks.
public protocol SampleStream: AnyObject {
    /// The next sample; waits for it (a replay paces itself), returns `nil` when the source has
    /// ended, throws when the sensor failed. Honours task cancellation by returning `nil` or
    /// throwing `CancellationError`.
    func next() async throws -> Sample?
    /// Releases the sensor and returns once it is released (a buffer disabled, a file closed),
    /// without blocking a thread of the cooperative pool. Idempotent.
    func close() async
    /// The device behind the stream for warnings about it, e.g. `iio:device0 (accel_3d)`.
    /// Default: `nil` (the source's name is used).
    var deviceName: String? { get }
}

extension SampleStream {
    public var deviceName: String? { nil }
}
