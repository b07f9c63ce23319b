import OrientationCore

/// A stream opened with a ``SampleConsumer`` from a source that has no reader thread of its own
/// (a replay, a test's source): its samples are handed to the consumer in the task that awaits
/// ``next()``, which returns `nil` once the source has ended (or throws its failure). The
/// consumer's pacing is ignored: such a source delivers what it has.
final class ConsumingStream: SampleStream {
    private let inner: any SampleStream
    private let consumer: any SampleConsumer

    init(_ inner: any SampleStream, consumer: any SampleConsumer) {
        self.inner = inner
        self.consumer = consumer
    }

    func next() async throws -> Sample? {
        while let sample = try await inner.next() { _ = consumer.consume(sample) }
        return nil
    }

    func close() async { await inner.close() }

    var deviceName: String? { inner.deviceName }
}
