import Logging
import OrientationCore
import SensorIIO
import Synchronization

/// One light, proximity or compass sensor as the daemon serves it: open (an
/// ``AuxiliarySensorReader`` polling it) exactly while someone claims it and discovery has one,
/// its readings turned into what clients get (light: × the per-device scale, then
/// ``LightLevelFilter``; proximity: ``ProximityHysteresis``; compass: ``CompassHeading``), and
/// every change of its ``AuxiliarySensorState`` (presence or reading) handed to `onChange`.
///
/// **The wiring point for the D-Bus facade**: claims come per claimer name
/// (``setClaimed(_:_:)``: `"socket"` from the hub, `"dbus"` from the bus; or
/// ``setClaimed(_:ready:)`` to learn when the first reading is there), the state goes out
/// through the one `onChange` closure (``AuxiliarySensors``' init), in order, under a lock.
///
/// Thread-safe: claims come from the hub's loop and the bus thread, rescans from the udev
/// monitor's, readings from the reader's; nothing here blocks (a reader's thread is started or
/// asked to stop, never waited for, except by ``stop()``). A reader that fails (three reads in a
/// row) is logged and dropped; the next claim or hotplug event opens it again.
public final class AuxiliarySensorService: Sendable {
    public let kind: AuxiliarySensorKind

    private struct Inner {
        var claimers: Set<String> = []
        var sensor: AuxiliarySensorDescription? = nil
        var lightScale = 1.0
        var reader: AuxiliarySensorReader? = nil
        /// Bumped whenever a reader starts or stops: values from an older reader are dropped.
        var generation = 0
        var state: AuxiliarySensorState
        var hysteresis: ProximityHysteresis? = nil
        var filter = LightLevelFilter()
        /// ``setClaimed(_:ready:)``'s callbacks, called at the next reading.
        var waiting: [@Sendable (AuxiliarySensorState) -> Void] = []
    }

    private let inner: Mutex<Inner>
    private let logger: Logger
    private let onChange: @Sendable (AuxiliarySensorState) -> Void

    init(kind: AuxiliarySensorKind, logger: Logger, onChange: @escaping @Sendable (AuxiliarySensorState) -> Void) {
        self.kind = kind
        self.logger = logger
        self.onChange = onChange
        inner = Mutex(Inner(state: AuxiliarySensorState(kind: kind)))
    }

    /// The state now (`present` and the last reading).
    public var state: AuxiliarySensorState { inner.withLock { $0.state } }

    /// Whether a reader runs now (the sensor is claimed and there is one).
    public var isReading: Bool { inner.withLock { $0.reader != nil } }

    /// The sensor in use, if any.
    public var sensor: AuxiliarySensorDescription? { inner.withLock { $0.sensor } }

    /// Records whether `claimer` (`"socket"`, `"dbus"`) claims the sensor; the first claim opens
    /// it (the first reading follows at once), the last release closes it.
    public func setClaimed(_ claimer: String, _ claimed: Bool) {
        inner.withLock { inner in
            if claimed { inner.claimers.insert(claimer) } else { inner.claimers.remove(claimer) }
            reconcile(&inner)
        }
    }

    /// Claims for `claimer` as ``setClaimed(_:_:)`` does, and calls `ready` once with the state
    /// as soon as a reading has been taken after this call, even one that changes nothing (at
    /// once when there is no such sensor; with the last state when the reader fails). What the
    /// D-Bus facade needs to answer `ClaimLight` with a value already there, as the peer does;
    /// the bound on the wait is the caller's. Called under the sensor's lock: must not block.
    public func setClaimed(_ claimer: String, ready: @escaping @Sendable (AuxiliarySensorState) -> Void) {
        inner.withLock { inner in
            inner.claimers.insert(claimer)
            reconcile(&inner)
            if inner.reader == nil {
                ready(inner.state)
            } else {
                inner.waiting.append(ready)
            }
        }
    }

    /// Uses `sensor` from now on (`nil`: there is none); an open reader of another device is
    /// replaced. From discovery (``AuxiliarySensors``).
    func use(_ sensor: AuxiliarySensorDescription?, lightScale: Double) {
        inner.withLock { inner in
            let changed = inner.sensor != sensor || inner.lightScale != lightScale
            if changed, let reader = inner.reader {
                reader.requestStop()
                inner.reader = nil
                inner.generation += 1
            }
            inner.sensor = sensor
            inner.lightScale = lightScale
            var state = inner.state
            state.present = sensor != nil
            if sensor == nil { state.reading = nil }
            publish(state, &inner)
            reconcile(&inner)
        }
    }

    /// Closes the sensor and waits for its reader's thread to end (shutdown).
    func stop() async {
        let reader = inner.withLock { inner -> AuxiliarySensorReader? in
            inner.claimers = []
            inner.sensor = nil
            inner.generation += 1
            release(&inner)
            defer { inner.reader = nil }
            return inner.reader
        }
        await reader?.stop()
    }

    private func reconcile(_ inner: inout Inner) {
        let wanted = !inner.claimers.isEmpty ? inner.sensor : nil
        if wanted == nil, let reader = inner.reader {
            reader.requestStop()
            inner.reader = nil
            inner.generation += 1
            logger.debug("closed \(kind.noun)")
        }
        if wanted == nil { release(&inner) }
        guard let sensor = wanted, inner.reader == nil else { return }
        inner.generation += 1
        let generation = inner.generation
        inner.filter.reset()
        inner.hysteresis = sensor.nearLevel.map { ProximityHysteresis(nearLevel: $0.value) }
        let reader = AuxiliarySensorReader(sensor: sensor, onValue: { [weak self] value in
            self?.take(value, generation: generation)
        }, onFailure: { [weak self] reason in
            self?.failed(reason, generation: generation)
        })
        do {
            try reader.start()
            inner.reader = reader
            logger.info("opened \(kind.noun)", metadata: ["device": "\(sensor.id)", "name": "\(sensor.name)",
                                                        "period": "\(sensor.pollPeriod)"])
        } catch {
            logger.warning("cannot read \(kind.noun)", metadata: ["device": "\(sensor.id)", "error": "\(error)"])
        }
    }

    private func take(_ value: Double, generation: Int) {
        inner.withLock { inner in
            guard inner.generation == generation, let sensor = inner.sensor else { return }
            // Whatever the filter decides, a reading was taken: the claims waiting for one are answered.
            defer { release(&inner) }
            let reading: AuxiliaryReading
            switch kind {
            case .light:
                guard let level = inner.filter.admit(value * inner.lightScale) else { return }
                reading = .light(level: level, unit: sensor.lightUnit)
            case .proximity:
                guard var hysteresis = inner.hysteresis else { return }
                reading = .proximity(near: hysteresis.update(level: value))
                inner.hysteresis = hysteresis
            case .compass:
                guard let heading = CompassHeading.degrees(raw: value, scale: 1) else { return }
                reading = .compass(heading: heading)
            }
            var state = inner.state
            state.reading = reading
            publish(state, &inner)
        }
    }

    /// Calls the callbacks waiting for a reading with the state now.
    private func release(_ inner: inout Inner) {
        let waiting = inner.waiting
        inner.waiting = []
        for ready in waiting { ready(inner.state) }
    }

    private func failed(_ reason: String, generation: Int) {
        inner.withLock { inner in
            guard inner.generation == generation else { return }
            logger.warning("\(kind.noun) failed; it is read again at the next claim or hotplug event", metadata: ["reason": "\(reason)"])
            inner.reader = nil
            inner.generation += 1
            release(&inner)
        }
    }

    private func publish(_ state: AuxiliarySensorState, _ inner: inout Inner) {
        guard state != inner.state else { return }
        inner.state = state
        onChange(state)
    }
}
