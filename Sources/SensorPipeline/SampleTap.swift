import OrientationCore
import Synchronization

/// A second reader of the pipeline's samples (issue 30: the posture needs the display
/// accelerometer's readings too, and a buffered IIO device cannot be opened twice). Set, the tap
/// gets every sample the detection stage takes, after the scale check, on the reader's thread,
/// and says how long the reader may wait before its next reading (`nil`: at its full rate); the
/// stage asks the reader for the shorter of that and its own governor's wait, so the reader is as
/// fast as the faster of the two needs.
///
/// Contract: the closure is read under the tap's lock and called after it is released; it runs on
/// the reader's thread, in sample order, and must not block. Setting or clearing it takes effect
/// from the next sample; it survives the sensor's reopening.
public final class SampleTap: Sendable {
    private let body = Mutex<(@Sendable (Sample) -> Double?)?>(nil)

    public init() {}

    /// Sets (or, with `nil`, clears) the tap.
    public func set(_ body: (@Sendable (Sample) -> Double?)?) {
        self.body.withLock { $0 = body }
    }

    /// Hands `sample` to the tap, if one is set; returns the wait it asks for (`.none`: no tap,
    /// `.some(nil)`: the full rate).
    func deliver(_ sample: Sample) -> Double?? {
        guard let tap = body.withLock({ $0 }) else { return .none }
        return .some(tap(sample))
    }
}
