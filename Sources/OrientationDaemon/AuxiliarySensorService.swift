import AmbientSensorCore
import Logging
import OrientationCore
import OwnerThreads
import SensorIIO
import SensorLifecycle
import SensorPipeline
import Synchronization

/// One light, proximity or compass sensor as the daemon serves it: open (an
/// ``AuxiliarySensorReader`` polling it) while someone claims it and discovery has one,
/// its readings turned into what clients get (light: × the per-device scale, then
/// ``LightLevelFilter``; proximity: ``ProximityHysteresis``; compass: ``CompassHeading``), and
/// every change of its ``AuxiliarySensorState`` (presence or reading) handed to `onChange`.
///
/// **The wiring point for the D-Bus facade**: claims come per claimer name
/// (``setClaimed(_:_:)``: `"socket"` from the hub, `"dbus"` from the bus; or
/// ``setClaimed(_:ready:)`` to learn when the first reading is there), the state goes out
/// through the one `onChange` closure (``AuxiliarySensors``' init), in order.
///
/// Opening and closing, as the accelerometer's pipeline does it (issue 29):
/// - **Level-triggered**: claims only change the desired state; the service then opens or
///   closes to match it, whatever order the claims, releases and hotplug events came in.
/// - **Release delay**: the last release closes the sensor ``releaseDelay`` seconds later
///   (the accelerometer's `SensorPipeline.defaultReleaseDelay`), and a claim within it keeps
///   the open reader: a client looping claim/release costs one open, not a thread per claim.
/// - **At most one open at a time**: a reader asked to stop must have ended its thread before
///   the next one starts.
/// - **Throttled logs**: an open is logged at most once per ``logInterval`` seconds, with the
///   number held back.
/// - **No callback, logger write or thread start under the lock**: a locked section decides,
///   and what it decided (start a reader, stop one, arm the close timer, log) is done after the
///   lock is released; `onChange` and the `ready` callbacks go through a ``CallbackQueue``,
///   queued under the lock, so they run in the order of the changes. Lock order: this
///   service's lock, then the queue's; no other lock is taken under it.
///
/// Thread-safe: claims come from the hub's loop and the bus thread, rescans from the udev
/// monitor's, readings from the reader's; nothing here blocks (a reader's thread is started or
/// asked to stop, never waited for, except by ``stop()``). A reader that fails (three reads in a
/// row) is logged and dropped; the next claim or hotplug event opens it again.
public final class AuxiliarySensorService: Sendable {
    public let kind: AuxiliarySensorKind
    /// Seconds a sensor stays open after its last claim goes.
    public let releaseDelay: Double
    /// At most one "opened" line per this many seconds (the rest are counted).
    public static let logInterval = 10.0

    private struct Inner {
        var claimers: Set<String> = []
        /// The claim and when the last one went (monotonic seconds): the rule the accelerometer's
        /// pipeline uses too.
        var release = ReleaseDelay()
        /// A close timer is pending (at most one at a time).
        var closeTimerArmed = false
        var sensor: AuxiliarySensorDescription? = nil
        var lightScale = 1.0
        var reader: AuxiliarySensorReader? = nil
        /// A reader asked to stop whose thread has not ended yet: nothing opens until it has.
        var closing: AuxiliarySensorReader? = nil
        /// Bumped whenever a reader starts or stops: values from an older reader are dropped.
        var generation = 0
        var state: AuxiliarySensorState
        /// The kind's filter for the open sensor (``AuxiliarySensorKind/makeFilter(lightScale:lightUnit:nearLevel:)``),
        /// made afresh at each open; `nil` reads nothing (a proximity sensor without a near level).
        var filter: (any AuxiliaryReadingFilter)? = nil
        /// ``setClaimed(_:ready:)``'s callbacks, called at the next reading.
        var waiting: [@Sendable (AuxiliarySensorState) -> Void] = []
        /// The last reader failed: nothing reopens until the next claim or discovery (no loop
        /// of failing opens).
        var failed = false
        /// Readers started since the service was made.
        var opens = 0
        var openLog = LogThrottle(interval: AuxiliarySensorService.logInterval)
    }

    /// What a locked section decided, done once the lock is released.
    private struct Effects {
        var start: (reader: AuxiliarySensorReader, generation: Int)? = nil
        /// Readers to stop; each one's end is awaited before the next open.
        var stop: [AuxiliarySensorReader] = []
        /// Seconds until the pending close is due.
        var closeTimer: Double? = nil
        var logs: [(level: Logger.Level, message: String, metadata: Logger.Metadata)] = []
    }

    private let inner: Mutex<Inner>
    private let logger: Logger
    private let onChange: @Sendable (AuxiliarySensorState) -> Void
    private let sleeper: Sleeper
    private let callbacks = CallbackQueue()

    init(kind: AuxiliarySensorKind, logger: Logger, sleeper: Sleeper = .task, releaseDelay: Double = SensorPipeline.defaultReleaseDelay,
         onChange: @escaping @Sendable (AuxiliarySensorState) -> Void) {
        self.kind = kind
        self.logger = logger
        self.sleeper = sleeper
        self.releaseDelay = releaseDelay
        self.onChange = onChange
        inner = Mutex(Inner(state: AuxiliarySensorState(kind: kind)))
    }

    /// The state now (`present` and the last reading).
    public var state: AuxiliarySensorState { inner.withLock { $0.state } }

    /// Whether a reader runs now (claimed, or released less than ``releaseDelay`` ago, and
    /// there is a sensor).
    public var isReading: Bool { inner.withLock { $0.reader != nil } }

    /// How many times a reader was started (a thread each): what claim loops are measured by.
    public var opens: Int { inner.withLock { $0.opens } }

    /// The sensor in use, if any.
    public var sensor: AuxiliarySensorDescription? { inner.withLock { $0.sensor } }

    /// Records whether `claimer` (`"socket"`, `"dbus"`) claims the sensor; the first claim opens
    /// it (the first reading follows at once), the last release closes it ``releaseDelay``
    /// seconds later unless it is claimed again meanwhile.
    public func setClaimed(_ claimer: String, _ claimed: Bool) {
        update { inner, effects in
            if claimed {
                inner.claimers.insert(claimer)
                inner.failed = false
            } else {
                inner.claimers.remove(claimer)
            }
            reconcile(&inner, &effects)
        }
    }

    /// Claims for `claimer` as ``setClaimed(_:_:)`` does, and calls `ready` once with the state
    /// as soon as a reading has been taken after this call, even one that changes nothing (at
    /// once when there is no such sensor; with the last state when the reader fails). What the
    /// D-Bus facade needs to answer `ClaimLight` with a value already there, as the peer does;
    /// the bound on the wait is the caller's. Not called under any lock; must not block.
    public func setClaimed(_ claimer: String, ready: @escaping @Sendable (AuxiliarySensorState) -> Void) {
        update { inner, effects in
            inner.claimers.insert(claimer)
            inner.failed = false
            reconcile(&inner, &effects)
            if inner.reader == nil && (inner.closing == nil || inner.sensor == nil || inner.failed) {
                let state = inner.state
                callbacks.enqueue { ready(state) }
            } else {
                inner.waiting.append(ready)
            }
        }
    }

    /// Uses `sensor` from now on (`nil`: there is none); an open reader of another device is
    /// replaced. From discovery (``AuxiliarySensors``).
    func use(_ sensor: AuxiliarySensorDescription?, lightScale: Double) {
        update { inner, effects in
            let changed = inner.sensor != sensor || inner.lightScale != lightScale
            if changed { close(&inner, &effects) }
            inner.sensor = sensor
            inner.lightScale = lightScale
            inner.failed = false
            var state = inner.state
            state.present = sensor != nil
            if sensor == nil { state.reading = nil }
            publish(state, &inner)
            reconcile(&inner, &effects)
        }
    }

    /// Closes the sensor and waits for its reader's thread to end (shutdown).
    func stop() async {
        let readers = inner.withLock { inner -> [AuxiliarySensorReader] in
            inner.claimers = []
            inner.sensor = nil
            inner.generation += 1
            release(&inner)
            defer { inner.reader = nil; inner.closing = nil }
            return [inner.reader, inner.closing].compactMap { $0 }
        }
        callbacks.drain()
        for reader in readers { await reader.stop() }
    }

    /// Runs `change` under the lock, then what it decided, with no lock held.
    private func update(_ change: (inout Inner, inout Effects) -> Void) {
        var effects = Effects()
        inner.withLock { inner in change(&inner, &effects) }
        perform(effects)
    }

    private func perform(_ effects: Effects) {
        callbacks.drain()
        for entry in effects.logs { logger.log(level: entry.level, "\(entry.message)", metadata: entry.metadata) }
        for reader in effects.stop {
            reader.requestStop()
            // Awaited off the caller's thread; the next open waits for it (one open at a time).
            Task { [weak self] in
                await reader.stop()
                self?.ended(reader)
            }
        }
        if let delay = effects.closeTimer {
            Task { [weak self, sleeper] in
                try? await sleeper.sleep(seconds: delay)
                self?.closeTimerFired()
            }
        }
        if let (reader, generation) = effects.start {
            do {
                try reader.start()
            } catch {
                logger.warning("cannot read \(kind.noun)", metadata: ["device": "\(reader.sensor.id)", "error": "\(error)"])
                update { inner, _ in
                    guard inner.generation == generation else { return }
                    inner.reader = nil
                    inner.generation += 1
                    release(&inner)
                }
            }
        }
    }

    private func reconcile(_ inner: inout Inner, _ effects: inout Effects) {
        let now = OwnerThread.monotonic()
        inner.release.update(claimed: !inner.claimers.isEmpty, now: now)
        // Released: the open reader stays for the release delay (a claim within it keeps it).
        if inner.reader != nil, inner.sensor != nil, let remaining = inner.release.remaining(after: releaseDelay, now: now) {
            if remaining > 0 {
                if !inner.closeTimerArmed {
                    inner.closeTimerArmed = true
                    effects.closeTimer = remaining
                }
                return
            }
        }
        let wanted = !inner.claimers.isEmpty ? inner.sensor : nil
        if wanted == nil {
            close(&inner, &effects)
            release(&inner)
        }
        // One open at a time: the next reader starts once the previous one's thread has ended.
        guard let sensor = wanted, inner.reader == nil, inner.closing == nil, !inner.failed else { return }
        inner.generation += 1
        let generation = inner.generation
        inner.filter = kind.makeFilter(lightScale: inner.lightScale, lightUnit: sensor.lightUnit, nearLevel: sensor.nearLevel?.value)
        let reader = AuxiliarySensorReader(sensor: sensor, onValue: { [weak self] value in
            self?.take(value, generation: generation)
        }, onFailure: { [weak self] reason in
            self?.failed(reason, generation: generation)
        })
        inner.reader = reader
        inner.opens += 1
        effects.start = (reader, generation)
        let admitted = inner.openLog.admit(now: now)
        if admitted.log {
            var metadata: Logger.Metadata = ["device": "\(sensor.id)", "name": "\(sensor.name)", "period": "\(sensor.pollPeriod)"]
            if admitted.suppressed > 0 { metadata["opens-not-logged"] = "\(admitted.suppressed)" }
            effects.logs.append((.info, "opened \(kind.noun)", metadata))
        }
    }

    /// Stops the open reader, if any (its end is awaited before the next open).
    private func close(_ inner: inout Inner, _ effects: inout Effects) {
        guard let reader = inner.reader else { return }
        inner.reader = nil
        inner.closing = reader
        inner.generation += 1
        effects.stop.append(reader)
        effects.logs.append((.debug, "closed \(kind.noun)", [:]))
    }

    /// A stopped reader's thread has ended: the next open may start.
    private func ended(_ reader: AuxiliarySensorReader) {
        update { inner, effects in
            guard inner.closing === reader else { return }
            inner.closing = nil
            reconcile(&inner, &effects)
        }
    }

    private func closeTimerFired() {
        update { inner, effects in
            inner.closeTimerArmed = false
            reconcile(&inner, &effects)
        }
    }

    private func take(_ value: Double, generation: Int) {
        update { inner, _ in
            guard inner.generation == generation, inner.sensor != nil else { return }
            // Whatever the filter decides, a reading was taken: the claims waiting for one are answered.
            defer { release(&inner) }
            guard let reading = inner.filter?.admit(value) else { return }
            var state = inner.state
            state.reading = reading
            publish(state, &inner)
        }
    }

    /// Queues the callbacks waiting for a reading, with the state now.
    private func release(_ inner: inout Inner) {
        let waiting = inner.waiting
        inner.waiting = []
        let state = inner.state
        for ready in waiting { callbacks.enqueue { ready(state) } }
    }

    private func failed(_ reason: String, generation: Int) {
        update { inner, effects in
            guard inner.generation == generation, let reader = inner.reader else { return }
            effects.logs.append((.warning, "\(kind.noun) failed; it is read again at the next claim or hotplug event",
                                 ["reason": "\(reason)"]))
            // Its thread ends by itself; the next open waits for that as for a stop.
            inner.failed = true
            inner.reader = nil
            inner.closing = reader
            inner.generation += 1
            effects.stop.append(reader)
            release(&inner)
        }
    }

    private func publish(_ state: AuxiliarySensorState, _ inner: inout Inner) {
        guard state != inner.state else { return }
        inner.state = state
        callbacks.enqueue { [onChange] in onChange(state) }
    }
}
