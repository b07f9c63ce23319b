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
/// Opening and closing are its ``ClaimedSensor``'s (``lifecycle``), the one lifecycle every
/// sensor kind shares (issue 36): level-triggered, the release delay
/// (`SensorPipeline.defaultReleaseDelay`: a client looping claim/release costs one open, not a
/// thread per claim), one reader at a time (a reader asked to stop has ended its thread before
/// the next one starts). This type is the session: a reader started, its values filtered and
/// published, its end awaited.
/// - **Throttled logs**: an open is logged at most once per ``logInterval`` seconds, with the
///   number held back.
/// - `onChange` and the `ready` callbacks go through a ``CallbackQueue``, queued under the
///   service's lock, so they run in the order of the changes, under no lock.
///
/// Thread-safe: claims come from the hub's loop and the bus thread, rescans from the udev
/// monitor's, readings from the reader's; nothing here blocks. A reader that fails (three reads
/// in a row) is logged and dropped; the next claim or hotplug event opens it again.
public final class AuxiliarySensorService: Sendable {
    public let kind: AuxiliarySensorKind
    /// Seconds a sensor stays open after its last claim goes.
    public var releaseDelay: Double { lifecycle.releaseDelay }
    /// At most one "opened" line per this many seconds (the rest are counted).
    public static let logInterval = 10.0
    /// The sensor's claims, presence and open/close loop.
    public let lifecycle: ClaimedSensor

    private struct Inner {
        var sensor: AuxiliarySensorDescription? = nil
        var lightScale = 1.0
        /// The open session's generation (0: none): values from an older reader are dropped.
        var generation = 0
        var state: AuxiliarySensorState
        /// The kind's filter for the open sensor (``AuxiliarySensorKind/makeFilter(lightScale:lightUnit:nearLevel:)``),
        /// made afresh at each open; `nil` reads nothing (a proximity sensor without a near level).
        var filter: (any AuxiliaryReadingFilter)? = nil
        /// ``setClaimed(_:ready:)``'s callbacks, called at the next reading.
        var waiting: [@Sendable (AuxiliarySensorState) -> Void] = []
        var openLog = LogThrottle(interval: AuxiliarySensorService.logInterval)
    }

    private let inner: Mutex<Inner>
    private let logger: Logger
    private let onChange: @Sendable (AuxiliarySensorState) -> Void
    private let callbacks = CallbackQueue()

    init(kind: AuxiliarySensorKind, logger: Logger, sleeper: Sleeper = .task, releaseDelay: Double = SensorPipeline.defaultReleaseDelay,
         onChange: @escaping @Sendable (AuxiliarySensorState) -> Void) {
        self.kind = kind
        self.logger = logger
        self.onChange = onChange
        lifecycle = ClaimedSensor(releaseDelay: releaseDelay, present: false, sleeper: sleeper)
        inner = Mutex(Inner(state: AuxiliarySensorState(kind: kind)))
        lifecycle.start { [weak self] generation in await self?.read(generation: generation) ?? .closed }
    }

    /// The state now (`present` and the last reading).
    public var state: AuxiliarySensorState { inner.withLock { $0.state } }

    /// Whether a reader runs now (claimed, or released less than ``releaseDelay`` ago, and
    /// there is a sensor).
    public var isReading: Bool { lifecycle.status.isOpen }

    /// How many times a reader was started (a thread each): what claim loops are measured by.
    public var opens: Int { lifecycle.status.opens }

    /// The sensor in use, if any.
    public var sensor: AuxiliarySensorDescription? { inner.withLock { $0.sensor } }

    /// Records whether `claimer` (`"socket"`, `"dbus"`) claims the sensor; the first claim opens
    /// it (the first reading follows at once), the last release closes it ``releaseDelay``
    /// seconds later unless it is claimed again meanwhile.
    public func setClaimed(_ claimer: String, _ claimed: Bool) {
        lifecycle.setClaimed(claimer, claimed)
    }

    /// Claims for `claimer` as ``setClaimed(_:_:)`` does, and calls `ready` once with the state
    /// as soon as a reading has been taken after this call, even one that changes nothing (at
    /// once when there is no such sensor; with the last state when the reader fails or cannot
    /// start). What the D-Bus facade needs to answer `ClaimLight` with a value already there, as
    /// the peer does; the bound on the wait is the caller's. Not called under any lock; must not
    /// block.
    public func setClaimed(_ claimer: String, ready: @escaping @Sendable (AuxiliarySensorState) -> Void) {
        inner.withLock { inner in
            if inner.sensor == nil {
                let state = inner.state
                callbacks.enqueue { ready(state) }
            } else {
                inner.waiting.append(ready)
            }
        }
        callbacks.drain()
        lifecycle.setClaimed(claimer, true)
    }

    /// Uses `sensor` from now on (`nil`: there is none); an open reader of another device is
    /// replaced. From discovery (``AuxiliarySensors``): every call is a presence report, which
    /// lets a failed reader be tried again.
    func use(_ sensor: AuxiliarySensorDescription?, lightScale: Double) {
        let changed = inner.withLock { inner -> Bool in
            let changed = inner.sensor != sensor || inner.lightScale != lightScale
            // The open reader's values (another device's, or the old scale's) are dropped from now.
            if changed { inner.generation = 0 }
            inner.sensor = sensor
            inner.lightScale = lightScale
            var state = inner.state
            state.present = sensor != nil
            if sensor == nil { state.reading = nil }
            publish(state, &inner)
            if sensor == nil { release(&inner) }
            return changed
        }
        callbacks.drain()
        lifecycle.setPresent(sensor != nil)
        if changed, sensor != nil { lifecycle.restart() }
    }

    /// Closes the sensor and waits for its reader's thread to end (shutdown).
    func stop() async {
        await lifecycle.stop()
        inner.withLock { inner in release(&inner) }
        callbacks.drain()
    }

    /// The session: one reader of the sensor in use, from its start to its end (cancelled by the
    /// lifecycle, or failed).
    private func read(generation: Int) async -> ClaimedSensor.Ending {
        let opening = inner.withLock { inner -> (AuxiliarySensorDescription, (log: Bool, suppressed: Int))? in
            guard let sensor = inner.sensor else { return nil }
            inner.generation = generation
            inner.filter = kind.makeFilter(lightScale: inner.lightScale, lightUnit: sensor.lightUnit, nearLevel: sensor.nearLevel?.value)
            return (sensor, inner.openLog.admit(now: OwnerThread.monotonic()))
        }
        guard let (sensor, admitted) = opening else { return .closed }
        if admitted.log {
            var metadata: Logger.Metadata = ["device": "\(sensor.id)", "name": "\(sensor.name)", "period": "\(sensor.pollPeriod)"]
            if admitted.suppressed > 0 { metadata["opens-not-logged"] = "\(admitted.suppressed)" }
            logger.info("opened \(kind.noun)", metadata: metadata)
        }
        let (failures, failed) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1))
        let reader = AuxiliarySensorReader(sensor: sensor, onValue: { [weak self] value in
            self?.take(value, generation: generation)
        }, onFailure: { reason in
            failed.yield(reason)
            failed.finish()
        })
        let ending: ClaimedSensor.Ending
        do {
            try reader.start()
            // Until the reader fails, or the lifecycle cancels this task (the stream then ends).
            var iterator = failures.makeAsyncIterator()
            if let reason = await iterator.next() {
                logger.warning("\(kind.noun) failed; it is read again at the next claim or hotplug event", metadata: ["reason": "\(reason)"])
                ending = .failed(reason)
            } else {
                logger.debug("closed \(kind.noun)")
                ending = .closed
            }
        } catch {
            logger.warning("cannot read \(kind.noun)", metadata: ["device": "\(sensor.id)", "error": "\(error)"])
            ending = .failed("\(error)")
        }
        await reader.stop()
        inner.withLock { inner in
            if inner.generation == generation { inner.generation = 0 }
            // Whoever waits for a reading gets the state as it is: none is coming from this reader.
            release(&inner)
        }
        callbacks.drain()
        return ending
    }

    private func take(_ value: Double, generation: Int) {
        inner.withLock { inner in
            guard inner.generation == generation, inner.sensor != nil else { return }
            // Whatever the filter decides, a reading was taken: the claims waiting for one are answered.
            defer { release(&inner) }
            guard let reading = inner.filter?.admit(value) else { return }
            var state = inner.state
            state.reading = reading
            publish(state, &inner)
        }
        callbacks.drain()
    }

    /// Queues the callbacks waiting for a reading, with the state now.
    private func release(_ inner: inout Inner) {
        let waiting = inner.waiting
        inner.waiting = []
        let state = inner.state
        for ready in waiting { callbacks.enqueue { ready(state) } }
    }

    private func publish(_ state: AuxiliarySensorState, _ inner: inout Inner) {
        guard state != inner.state else { return }
        inner.state = state
        callbacks.enqueue { [onChange] in onChange(state) }
    }
}
