import OrientationCore
import OwnerThreads
import SensorDeviceAccess
import SensorPipeline

/// An input-subsystem accelerometer (`/dev/input/eventN`) as a ``SensorSource``: opening starts
/// a reader thread (``EvdevReadLoop``), closing stops it and closes the node.
///
/// Contract: samples are `value × scale` per axis, then `M · value` (the same mount-matrix rules
/// as IIO devices). The scale is the configured one, else 1 g ÷ the axis resolution (the input
/// ABI gives accelerometer resolution in units per g), else iio-sensor-proxy's convention for
/// input accelerometers, 1 g = 256. A still device whose driver reports nothing new is repeated
/// at `rate` from its last values, so that it never looks stalled; a node that fails to read
/// (`ENODEV`: unplugged) ends the stream with that error, and one that gives no values at all
/// within `stallTimeout` ends it as stalled (the pipeline reopens it).
public final class EvdevSensorSource: SensorSource {
    public let name: String
    public let node: String
    public let mountMatrix: MountMatrix
    public let rate: Double
    public let scale: Double?
    public let stallTimeout: Double
    public let clocks: SystemClocks

    public init(node: String, name: String, mountMatrix: MountMatrix, rate: Double, scale: Double? = nil, stallTimeout: Double = 3,
                clocks: SystemClocks = .system) {
        self.node = node
        self.name = name
        self.mountMatrix = mountMatrix
        self.rate = rate
        self.scale = scale
        self.stallTimeout = stallTimeout
        self.clocks = clocks
    }

    public func open() async throws -> any SampleStream {
        try await open(consumer: nil)
    }

    /// With a `consumer`, the reader thread hands it every sample, and repeats a still device
    /// as seldom as it asks.
    public func open(consumer: (any SampleConsumer)?) async throws -> any SampleStream {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Sample.self, bufferingPolicy: .bufferingNewest(4096))
        let loop = EvdevReadLoop(node: node, mountMatrix: mountMatrix, rate: rate, scale: scale, stallTimeout: stallTimeout, clocks: clocks,
                                 delivery: SampleDelivery(continuation: continuation, consumer: consumer))
        let thread = OwnerThread(name: "od-evdev-reader") { owner in loop.run(owner) }
        try thread.startReader()
        return Stream(thread: thread, iterator: stream.makeAsyncIterator(), deviceName: name)
    }

    final class Stream: SampleStream {
        let thread: OwnerThread
        var iterator: AsyncThrowingStream<Sample, Error>.AsyncIterator
        let deviceName: String?
        var closed = false

        init(thread: OwnerThread, iterator: AsyncThrowingStream<Sample, Error>.AsyncIterator, deviceName: String) {
            self.thread = thread
            self.iterator = iterator
            self.deviceName = deviceName
        }

        func next() async throws -> Sample? {
            guard !closed else { return nil }
            return try await iterator.next()
        }

        func close() async {
            guard !closed else { return }
            closed = true
            await thread.stop()
        }

        deinit {
            if !closed { thread.requestStop() }
        }
    }
}
