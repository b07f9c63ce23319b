import OrientationCore
import OrientationProtocol
import OrientationServer
import SensorLifecycle
import Synchronization

/// Turns the claim and the pipeline's sensor events into the ``SensorStatus`` clients see
/// (issue 21: with no accelerometer, `get` said "closed" beside a subscriber and `monitor`
/// showed `unknown` forever; the cause was only in the daemon's log).
///
/// - nobody claims: `closed` (with the last attempt's problem as the reason, if it had one);
/// - claimed: `opening`, then `open` once the pipeline opened the sensor;
/// - an open that fails: `absent` when discovery finds no display accelerometer (`present`
///   false), else `failed`, each with the daemon's error as the reason, until an open succeeds;
/// - a replay that reached its end: `ended`.
///
/// Thread-safe; each change is queued for `publish` under the lock and handed over after it is
/// released (``CallbackQueue``), so the hub gets them in order and no lock is held meanwhile.
final class SensorStatusTracker: Sendable {
    private struct Inputs {
        var claimed = false
        /// Whether the pipeline has the sensor open (it stays open a moment after the last
        /// release: a claim then finds it open, not opening).
        var active = false
        /// Whether discovery finds a display accelerometer (`nil`: not known, a replay).
        var present: Bool? = nil
        var status = SensorStatus(.closed)
    }
    private let inputs = Mutex(Inputs())
    private let publish: @Sendable (SensorStatus) -> Void
    private let callbacks = CallbackQueue()

    init(publish: @escaping @Sendable (SensorStatus) -> Void) {
        self.publish = publish
        publish(SensorStatus(.closed))
    }

    /// Someone claims the sensor (`true`) or nobody does.
    func claimed(_ claimed: Bool) {
        update { inputs in
            inputs.claimed = claimed
            if !claimed {
                // Closed, but what the last attempt found is still news to a `get`.
                let known = [.absent, .failed].contains(inputs.status.state) ? inputs.status.reason : nil
                return SensorStatus(.closed, reason: known.map { "at the last attempt: \($0)" })
            }
            // A claim on a sensor already known to be missing or broken keeps saying so until
            // the next attempt tells otherwise.
            if [.absent, .failed].contains(inputs.status.state) { return inputs.status }
            return SensorStatus(inputs.active ? .open : .opening)
        }
    }

    /// The pipeline opened (`true`) or closed the sensor.
    func active(_ active: Bool) {
        update { inputs in
            inputs.active = active
            if active { return inputs.claimed ? SensorStatus(.open) : inputs.status }
            if inputs.claimed { return SensorStatus(.opening) }
            // Closed after the last release: keep what the last attempt found.
            return inputs.status.state == .closed ? inputs.status : SensorStatus(.closed)
        }
    }

    /// Opening or reading failed with `reason`; `present` says whether discovery finds a sensor.
    func failed(_ reason: String, present: Bool) {
        update { inputs in
            if inputs.present != nil { inputs.present = present }  // live sensors only
            // A failure that lands after the last release (the pipeline's close races it) is
            // still news to a `get`: closed, with what the attempt found.
            guard inputs.claimed else { return SensorStatus(.closed, reason: "at the last attempt: \(reason)") }
            return SensorStatus(present ? .failed : .absent, reason: reason)
        }
    }

    /// Discovery finds a display accelerometer (`true`) or none: from the daemon's start and
    /// every hotplug event, so clients know before anyone subscribes (issue 29).
    func present(_ present: Bool) {
        update { inputs in
            inputs.present = present
            return inputs.status
        }
    }

    /// A replay delivered its last sample.
    func ended() {
        update { _ in SensorStatus(.ended, reason: "the replayed log is over") }
    }

    /// The status now.
    var current: SensorStatus { inputs.withLock { $0.status } }

    /// Hands the current status to `publish` again (once the hub exists: a claim from a client
    /// queued on an activated socket may come before).
    func republish() {
        inputs.withLock { inputs in
            let status = inputs.status
            callbacks.enqueue { [publish] in publish(status) }
        }
        callbacks.drain()
    }

    private func update(_ next: (inout Inputs) -> SensorStatus) {
        inputs.withLock { inputs in
            var next = next(&inputs)
            next.present = inputs.present
            let status = next
            guard status != inputs.status else { return }
            inputs.status = status
            callbacks.enqueue { [publish] in publish(status) }
        }
        callbacks.drain()
    }
}
