import OrientationCore
import SensorDeviceAccess
import SensorPipeline
import Synchronization

/// A real IIO sensor as a ``SensorSource``: opening starts a reader thread (buffered or polled),
/// closing stops it and releases the device.
public final class IIOSensorSource: SensorSource {
    public let name: String
    public let plan: IIOReadPlan
    /// A gyroscope on a device of its own, merged by timestamp.
    public let gyroscope: IIOReadPlan?
    /// A gyroscope reading is attached to an accelerometer sample when their timestamps are at
    /// most this far apart (seconds); otherwise the sample goes without one.
    public static let mergeWindow = 0.05

    /// Read after each wake-up to notice a suspend (``SensorError/resumedFromSuspend(device:seconds:)``).
    public let clocks: SystemClocks

    public init(plan: IIOReadPlan, gyroscope: IIOReadPlan? = nil, name: String, clocks: SystemClocks = .system) {
        self.plan = plan
        self.gyroscope = gyroscope
        self.name = name
        self.clocks = clocks
    }

    public func open() async throws -> any SampleStream {
        try await open(consumer: nil)
    }

    /// With a `consumer`, the reader thread hands it every sample (the gyroscope's newest
    /// reading attached) and, polled, waits as long as it asks.
    public func open(consumer: (any SampleConsumer)?) async throws -> any SampleStream {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Sample.self, bufferingPolicy: .bufferingNewest(4096))
        let latest = LatestRate()
        // The gyroscope's thread only keeps its newest reading; the accelerometer's attaches it.
        let merging = consumer.map { GyroscopeMerging(inner: $0, latest: latest, merges: gyroscope != nil) }
        let reader = IIOReader(plan: plan, clocks: clocks, delivery: SampleDelivery(continuation: continuation, consumer: merging))
        try reader.start()
        var gyroReader: IIOReader? = nil
        if var gyroPlan = gyroscope {
            gyroPlan.family = .gyroscope
            let (_, rateContinuation) = AsyncThrowingStream.makeStream(of: Sample.self, bufferingPolicy: .bufferingNewest(1))
            let second = IIOReader(plan: gyroPlan, clocks: clocks, delivery: SampleDelivery(continuation: rateContinuation, consumer: latest))
            do { try second.start() } catch {
                await reader.stop()
                throw error
            }
            gyroReader = second
        }
        let opened = Stream(reader: reader, gyroReader: gyroReader, latest: latest, iterator: stream.makeAsyncIterator())
        opened.deviceName = name
        return opened
    }

    /// The newest gyroscope reading: the gyroscope's reader thread keeps it (as its consumer),
    /// the accelerometer's side reads it. The gyroscope's reader is paced as the accelerometer's
    /// (``follow(_:)``): a still device slows both.
    final class LatestRate: SampleConsumer {
        private let value = Mutex<(sample: Sample?, pace: Double?)>((nil, nil))
        func consume(_ sample: Sample) -> Double? {
            value.withLock { state in
                state.sample = sample
                return state.pace
            }
        }

        /// The wait the accelerometer's consumer asked for last.
        func follow(_ pace: Double?) {
            value.withLock { $0.pace = pace }
        }
        func get() -> Sample? { value.withLock { $0.sample } }

        /// `sample` with the newest rate attached when their times are within the merge window.
        func merged(_ sample: Sample) -> Sample {
            var sample = sample
            if sample.angularRate == nil, let rate = get(), abs(rate.time - sample.time) <= IIOSensorSource.mergeWindow {
                sample.angularRate = rate.angularRate
            }
            return sample
        }
    }

    /// The pipeline's consumer behind the gyroscope merge, on the accelerometer's reader thread.
    struct GyroscopeMerging: SampleConsumer {
        let inner: any SampleConsumer
        let latest: LatestRate
        let merges: Bool
        func consume(_ sample: Sample) -> Double? {
            guard merges else { return inner.consume(sample) }
            let pace = inner.consume(latest.merged(sample))
            latest.follow(pace)
            return pace
        }

        /// Only an accelerometer read alone can be woken: a merged gyroscope's reader follows
        /// the same waits and is not.
        func readerCanBeWoken(by wake: @escaping @Sendable () -> Void) {
            if !merges { inner.readerCanBeWoken(by: wake) }
        }
    }

    final class Stream: SampleStream {
        let reader: IIOReader
        let gyroReader: IIOReader?
        let latest: LatestRate
        var iterator: AsyncThrowingStream<Sample, Error>.AsyncIterator
        var closed = false
        /// The source's name (`iio:device0 (accel_3d)`), for warnings about the device.
        var deviceName: String? = nil

        init(reader: IIOReader, gyroReader: IIOReader?, latest: LatestRate, iterator: AsyncThrowingStream<Sample, Error>.AsyncIterator) {
            self.reader = reader
            self.gyroReader = gyroReader
            self.latest = latest
            self.iterator = iterator
        }

        func next() async throws -> Sample? {
            guard !closed, let sample = try await iterator.next() else { return nil }
            return gyroReader != nil ? latest.merged(sample) : sample
        }

        func close() async {
            guard !closed else { return }
            closed = true
            await reader.stop()
            await gyroReader?.stop()
        }

        /// Not closed by its owner: ask the threads to stop, without waiting.
        deinit {
            guard !closed else { return }
            reader.requestStop()
            gyroReader?.requestStop()
        }
    }
}
