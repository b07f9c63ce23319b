import OrientationCore

/// Where a reader thread hands its samples: to a ``SampleConsumer`` on that same thread when
/// the stream was opened with one (the daemon's pipeline), else into the stream its owner
/// awaits (``SensorSource/open()``: calibrate, the recorder, tests).
///
/// Either way the stream carries the end: it finishes when the reader ends and throws when it
/// failed, so the owner learns both by awaiting ``SampleStream/next()``.
public struct SampleDelivery: Sendable {
    /// The stream's end (and, without a consumer, its samples).
    public let continuation: AsyncThrowingStream<Sample, Error>.Continuation
    public let consumer: (any SampleConsumer)?

    public init(continuation: AsyncThrowingStream<Sample, Error>.Continuation, consumer: (any SampleConsumer)?) {
        self.continuation = continuation
        self.consumer = consumer
    }

    /// Hands `sample` over on the calling thread. Returns the wait the consumer asks for before
    /// the next reading (`nil`: the reader's own rate).
    @discardableResult
    public func deliver(_ sample: Sample) -> Double? {
        if let consumer { return consumer.consume(sample) }
        continuation.yield(sample)
        return nil
    }

    /// Tells the consumer (if any) how to wake this reader early
    /// (``SampleConsumer/readerCanBeWoken(by:)``); call on the reader's thread before its first sample.
    public func readerCanBeWoken(by wake: @escaping @Sendable () -> Void) {
        consumer?.readerCanBeWoken(by: wake)
    }

    /// The reader ended (`error` nil) or failed.
    public func finish(throwing error: Error? = nil) {
        if let error { continuation.finish(throwing: error) } else { continuation.finish() }
    }

    /// Runs a reader thread's whole read, `read`, and ends the stream as it ended: normally, or
    /// failed with what it threw (every reader's thread body).
    public func finish(after read: () throws -> Void) {
        do {
            try read()
            finish()
        } catch {
            finish(throwing: error)
        }
    }
}
