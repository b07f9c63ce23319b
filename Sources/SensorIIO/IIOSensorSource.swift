import OrientationCore
import SensorPipeline

/// A real IIO sensor as a ``SensorSource``: opening starts a reader thread (buffered or polled),
/// closing stops it and releases the device.
public final class IIOSensorSource: SensorSource {
    public let name: String
    public let plan: IIOReadPlan

    public init(plan: IIOReadPlan, name: String) {
        self.plan = plan
        self.name = name
    }

    public func open() async throws -> any SampleStream {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Sample.self, bufferingPolicy: .bufferingNewest(4096))
        let reader = IIOReader(plan: plan, continuation: continuation)
        try reader.start()
        return Stream(reader: reader, iterator: stream.makeAsyncIterator())
    }

    final class Stream: SampleStream {
        let reader: IIOReader
        var iterator: AsyncThrowingStream<Sample, Error>.AsyncIterator
        var closed = false

        init(reader: IIOReader, iterator: AsyncThrowingStream<Sample, Error>.AsyncIterator) {
            self.reader = reader
            self.iterator = iterator
        }

        func next() async throws -> Sample? {
            guard !closed else { return nil }
            return try await iterator.next()
        }

        func close() {
            guard !closed else { return }
            closed = true
            reader.stop()
        }

        deinit { close() }
    }
}
