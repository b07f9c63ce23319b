import OwnerThreads
import SensorDeviceAccess

/// Reads a ``HingeAngleChannel`` by polling its sysfs file on an owner thread of its own
/// (`od-hinge`), issue 30: the kernel's hinge-angle drivers have no event to wait for that
/// both share (cros-ec's channel is raw-only), so the value is read every `period`, from the
/// moment the reader starts, or less often while its consumer asks (issue 37: a cros-ec lid
/// angle read is an EC host command). The daemon's `PostureService` runs one while the posture
/// is read.
///
/// Contract:
/// - **A reading per period**, the first at once: ``Reading`` with the raw value, the angle in
///   degrees (`nil` when the driver says it cannot tell, e.g. the EC's 500) and the
///   CLOCK_MONOTONIC time of the read (the accelerometers' clock).
/// - **Paced by its consumer**: `onReading` returns how many seconds to wait before the next
///   read (`nil`: `period`; never less than `period`); ``wake()`` cuts the wait short and reads
///   at once (the posture's display moved).
/// - **Failures end it**: three failed reads in a row (the file gone or not a number) end the
///   reader, reported once to `onEnd` with the reason; a stop reports `nil`. A single failed
///   read is skipped (sysfs can fail once while the EC is busy).
/// - The file is opened and closed at each read; nothing stays open between reads.
public final class HingeAngleReader: Sendable {
    /// One reading.
    public struct Reading: Sendable, Equatable {
        /// The file's value.
        public let raw: Double
        /// Degrees (0 closed, 180 flat, 360 folded back), or `nil` when the reading says nothing.
        public let degrees: Double?
        /// CLOCK_MONOTONIC seconds when it was read.
        public let time: Double
    }

    public let channel: HingeAngleChannel
    /// Seconds between reads.
    public let period: Double
    private let thread: OwnerThread

    /// A reader of `channel` every `period` seconds (default 0.1 s, the posture detector's
    /// 10 Hz) or as `onReading` asks; `onReading` and `onEnd` run on the reader's thread and must
    /// not block.
    public init(channel: HingeAngleChannel, period: Double = 0.1, onReading: @escaping @Sendable (Reading) -> Double?,
                onEnd: @escaping @Sendable (_ failure: String?) -> Void) {
        self.channel = channel
        self.period = period
        let path = channel.sysfsPath + "/" + channel.rawAttribute
        thread = OwnerThread(name: "od-hinge") { owner in
            var failures = 0
            var next = OwnerThread.monotonic()
            while !owner.isStopping {
                var wait = period
                if let raw = SysfsAttribute.number(path) {
                    failures = 0
                    let time = OwnerThread.monotonic()
                    if let asked = onReading(Reading(raw: raw, degrees: channel.degrees(raw: raw), time: time)) {
                        wait = max(period, asked)
                        next = time  // a paced reader waits from its reading, as the polled accelerometers do
                    }
                } else {
                    failures += 1
                    if failures >= 3 {
                        onEnd("cannot read \(path) (3 reads in a row failed)")
                        return
                    }
                }
                // The next read one period on, or now if a read or a suspend took longer (no burst to catch up).
                next = max(next + wait, OwnerThread.monotonic())
                owner.sleep(until: next)
            }
            onEnd(nil)
        }
    }

    /// Starts the reader's thread. Call once. A channel with an ``HingeAngleChannel/unusableReason``
    /// is refused.
    public func start() throws(SensorError) {
        if let reason = channel.unusableReason { throw .missingChannel(device: channel.id, channel: "hinge angle (\(reason))") }
        try thread.startReader()
    }

    /// Reads at once, whatever wait the last reading asked for (from any thread; returns at once).
    public func wake() {
        thread.interruptSleep()
    }

    /// Stops the reader and waits (without blocking a thread) until its thread has ended.
    public func stop() async {
        await thread.stop()
    }
}
