import OrientationCore

/// Takes each sample on the thread that read it (issue 28).
///
/// The pipeline's ``DetectionStage`` is one: the reader thread runs the detector itself and
/// wakes nobody unless something is published, so a sample costs the reader's own wake-up and
/// no other (before, every sample woke the reader, an event loop and the tasks between them).
/// What it returns paces the reader: a polled reader sleeps that long before its next reading.
public protocol SampleConsumer: Sendable {
    /// Called once per sample, in order, never concurrently, on the thread that read it; must
    /// not block. Returns how many seconds the reader may wait before its next reading, or
    /// `nil` for the reader's own rate (a reader that cannot wait longer ignores it).
    func consume(_ sample: Sample) -> Double?

    /// Called once by a reader that can cut a wait short, on its thread before its first
    /// sample: `wake` makes it read at once (from any thread, returns at once; a reader that
    /// ended ignores it). A consumer that asks for long waits only when it can wake the reader
    /// (the posture's base, parked while the machine lies still) keeps it. Readers that cannot
    /// (a buffered device's refill) never call it. The default ignores it.
    func readerCanBeWoken(by wake: @escaping @Sendable () -> Void)
}

extension SampleConsumer {
    public func readerCanBeWoken(by wake: @escaping @Sendable () -> Void) {}
}
