import OrientationCore
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

    /// Read after each wake-up to notice a suspend (``IIOError/resumedFromSuspend(device:seconds:)``).
    public let clocks: SystemClocks

    public init(plan: IIOReadPlan, gyroscope: IIOReadPlan? = nil, name: String, clocks: SystemClocks = .system) {
        self.plan = plan
        self.gyroscope = gyroscope
        self.name = name
        self.clocks = clocks
    }

    public func open() async throws -> any SampleStream {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Sample.self, bufferingPolicy: .bufferingNewest(4096))
        let reader = IIOReader(plan: plan, clocks: clocks, continuation: continuation)
        try reader.start()
        var gyroReader: IIOReader? = nil
        var merger: Task<Void, Never>? = nil
        let latest = LatestRate()
        if var gyroPlan = gyroscope {
            gyroPlan.family = .gyroscope
            let (rates, rateContinuation) = AsyncThrowingStream.makeStream(of: Sample.self, bufferingPolicy: .bufferingNewest(64))
            let second = IIOReader(plan: gyroPlan, clocks: clocks, continuation: rateContinuation)
            do { try second.start() } catch {
                await reader.stop()
                throw error
            }
            gyroReader = second
            merger = Task {
                do { for try await rate in rates { latest.set(rate) } } catch {}
            }
        }
        let opened = Stream(reader: reader, gyroReader: gyroReader, merger: merger, latest: latest, iterator: stream.makeAsyncIterator())
        opened.deviceName = name
        return opened
    }

    /// The newest gyroscope reading, shared between the merging task and the consumer.
    final class LatestRate: Sendable {
        private let value = Mutex<Sample?>(nil)
        func set(_ sample: Sample) { value.withLock { $0 = sample } }
        func get() -> Sample? { value.withLock { $0 } }
    }

    final class Stream: SampleStream {
        let reader: IIOReader
        let gyroReader: IIOReader?
        let merger: Task<Void, Never>?
        let latest: LatestRate
        var iterator: AsyncThrowingStream<Sample, Error>.AsyncIterator
        var closed = false
        /// The source's name (`iio:device0 (accel_3d)`), for warnings about the device.
        var deviceName: String? = nil

        init(reader: IIOReader, gyroReader: IIOReader?, merger: Task<Void, Never>?, latest: LatestRate,
             iterator: AsyncThrowingStream<Sample, Error>.AsyncIterator) {
            self.reader = reader
            self.gyroReader = gyroReader
            self.merger = merger
            self.latest = latest
            self.iterator = iterator
        }

        func next() async throws -> Sample? {
            guard !closed, var sample = try await iterator.next() else { return nil }
            if gyroReader != nil, sample.angularRate == nil, let rate = latest.get(),
               abs(rate.time - sample.time) <= IIOSensorSource.mergeWindow {
                sample.angularRate = rate.angularRate
            }
            return sample
        }

        func close() async {
            guard !closed else { return }
            closed = true
            merger?.cancel()
            await reader.stop()
            await gyroReader?.stop()
        }

        /// Not closed by its owner: ask the threads to stop, without waiting.
        deinit {
            guard !closed else { return }
            merger?.cancel()
            reader.requestStop()
            gyroReader?.requestStop()
        }
    }
}
