import OrientationCore
import PostureCore
import SensorLifecycle
import SensorLog
import SensorPipeline
import Synchronization

/// A convertible's log (v3, with `base_*` or `lid` columns) replayed by the daemon: the posture
/// is decided from the log's base readings and lid states beside the display's samples, as
/// `orientationctl replay` decides it, and served on the `posture` topic while the replay runs
/// (issue 39, item 3), so `orientationctl follow --exec` can be tried on a recording before it
/// touches the machine.
///
/// Contract:
/// - The display's samples come through the pipeline's ``SampleTap`` (``take(_:)``), on the
///   replay's thread, in time order. Before each, the log's rows up to its time go to the
///   detector; within one row the lid first, then the display, then the base (the order of
///   `orientationctl replay`, so both decide the same postures).
/// - A looping replay's next pass (its display times one ``ReplaySource/period`` later) starts
///   the rows again from the first, one period later too.
/// - What is published follows the live service's rule (``PostureStateRule``): a decided posture when it changes; while
///   unknown, why it is held. The state starts present (the log is a convertible's), unknown and
///   waiting for sensors.
/// - `publish` is called outside the lock, in order.
final class ReplayedPosture: Sendable {
    private struct Inner {
        var detector: PostureDetector
        var cursor = 0
        var offset = 0.0
        var rule = PostureStateRule()
        var state = PostureState(present: true, posture: .unknown, hingeAngle: nil, hold: .waitingForSensors)
    }

    private let rows: [SensorLogRecord]
    private let loops: Bool
    private let period: Double
    private let firstDisplayTime: Double
    private let inner: Mutex<Inner>
    private let callbacks = CallbackQueue()
    private let publish: @Sendable (PostureState) -> Void

    /// `nil` for a log that is not a convertible's (no base reading and no lid state).
    init?(replay: ReplaySource, configuration: PostureDetector.Configuration,
          publish: @escaping @Sendable (PostureState) -> Void) throws(ConfigurationError) {
        guard !replay.convertibleRows.isEmpty, let first = replay.samples.first else { return nil }
        rows = replay.convertibleRows
        loops = replay.loop
        period = replay.period
        firstDisplayTime = first.time
        inner = Mutex(Inner(detector: try PostureDetector(configuration: configuration)))
        self.publish = publish
    }

    /// The state subscribers are told before the replay starts.
    var initial: PostureState { inner.withLock { $0.state } }

    /// One display sample of the replay (the pipeline's tap): the rows up to it, then it.
    /// Returns `nil`: a replay is read at its own pace.
    func take(_ display: Sample) -> Double? {
        inner.withLock { inner in
            // A looping replay's next pass: what is left of this one first, then from the start.
            while loops, display.time >= firstDisplayTime + inner.offset + period {
                while inner.cursor < rows.count { feed(rows[inner.cursor], shift: inner.offset, lid: true, base: true, &inner) }
                inner.cursor = 0
                inner.offset += period
            }
            // Rows before the sample's, and rows at its time without a display reading.
            while inner.cursor < rows.count, rows[inner.cursor].time + inner.offset < display.time
                || (rows[inner.cursor].time + inner.offset == display.time && rows[inner.cursor].acceleration == nil) {
                feed(rows[inner.cursor], shift: inner.offset, lid: true, base: true, &inner)
            }
            // The row the display's sample is on (if it carries more): lid, display, base.
            let sameRow = inner.cursor < rows.count && rows[inner.cursor].time + inner.offset == display.time
                && rows[inner.cursor].acceleration != nil
            if sameRow, let lid = rows[inner.cursor].lidClosed {
                record(inner.detector.setLidSwitch(closed: lid, at: display.time), &inner)
            }
            record(inner.detector.process(PostureSample(time: display.time, location: .display, acceleration: display.acceleration)), &inner)
            if sameRow { feed(rows[inner.cursor], shift: inner.offset, lid: false, base: true, &inner) }
        }
        callbacks.drain()
        return nil
    }

    /// Feeds one row's lid state and base reading and moves past it.
    private func feed(_ row: SensorLogRecord, shift: Double, lid: Bool, base: Bool, _ inner: inout Inner) {
        let time = row.time + shift
        if lid, let closed = row.lidClosed { record(inner.detector.setLidSwitch(closed: closed, at: time), &inner) }
        if base, let reading = row.base {
            record(inner.detector.process(PostureSample(time: time, location: .base, acceleration: reading)), &inner)
        }
        inner.cursor += 1
    }

    /// The live service's rule (``PostureStateRule``): what is published, and when.
    private func record(_ event: PostureEvent?, _ inner: inout Inner) {
        let (state, publishes) = inner.rule.next(after: event, detector: inner.detector, previous: inner.state)
        inner.state = state
        if publishes { callbacks.enqueue { [publish, state] in publish(state) } }
    }
}
