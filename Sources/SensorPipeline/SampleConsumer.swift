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
}
