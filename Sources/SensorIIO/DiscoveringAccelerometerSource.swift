import Logging
import OrientationCore
import OwnerThreads
import SensorDeviceAccess
import SensorInput
import SensorPipeline
import Synchronization

/// The daemon's real sensor: every ``open()`` discovers the accelerometers anew, IIO devices and
/// input-subsystem (evdev) ones alike (so a sensor that was unplugged and plugged back, or whose
/// udev properties changed, is picked up), chooses the display accelerometer, resolves its mount matrix (config, then udev, then sysfs, then
/// identity; an invalid one is logged with its source and skipped), and starts a reader.
///
/// A buffered device that delivers nothing (no usable trigger, `EBUSY`, a trigger that needs a
/// suspend/resume cycle: all three are reported against iio-sensor-proxy) fails with a stall;
/// the next open then reads it polled, through its raw attributes, logged once, and the open
/// after that tries buffered again (issue 10, item 6).
///
/// libudev's enumeration blocks (it reads sysfs and the udev database), so async callers reach it
/// only through an owner thread of its own (``plan(settings:)``, ``isPresent()``); code that
/// discovered already (the daemon, once per udev event) asks ``presence(in:)``, which reads
/// nothing. Each ``open()`` takes one snapshot of the settings, so a reload in between
/// never mixes two configurations.
public final class DiscoveringAccelerometerSource: SensorSource {
    /// The settings the next ``open()`` uses (replaced by ``update(settings:)`` on a reload).
    public var settings: IIOSettings { current.withLock { $0 } }
    private let current: Mutex<IIOSettings>
    private let logger: Logger
    public var name: String { "iio" }
    /// Devices whose buffer delivered nothing on the last open: read polled on the next one.
    private let pollNext = Mutex<Set<String>>([])
    /// The choice's warnings already logged (``open()`` says each once).
    private let warned = Mutex<Set<String>>([])

    /// Passed to every reader, to notice a system suspend (tests script one).
    private let clocks: SystemClocks

    public init(settings: IIOSettings, logger: Logger, clocks: SystemClocks = .system) {
        current = Mutex(settings)
        self.logger = logger
        self.clocks = clocks
    }

    /// The device the last ``open()`` used, e.g. `iio:device0 (accel_3d)` (for STATUS= lines).
    public var lastOpened: String? { opened.withLock { $0 } }
    private let opened = Mutex<String?>(nil)
    /// The display accelerometer ``prepare()`` found, e.g. `iio:device0 (accel_3d)` (the
    /// daemon's start log names it; issue 40), `nil` before it or when there is none.
    public var prepared: String? { chosen.withLock { $0 } }
    private let chosen = Mutex<String?>(nil)

    /// Replaces the settings; they apply from the next ``open()`` (the daemon restarts the
    /// pipeline after a reload, so at once if the sensor is open).
    public func update(settings: IIOSettings) {
        current.withLock { $0 = settings }
    }

    /// True when discovery finds a display accelerometer now (udev enumeration only, on an
    /// owner thread; nothing is opened).
    public func isPresent() async -> Bool {
        let settings = self.settings
        // No thread to enumerate on: say present rather than report a false absence.
        return await OwnerThread.run(name: "od-udev-scan") { [self] in (try? plan(settings: settings, sensors: UdevDiscovery.sensors()))?.plan != nil } ?? true
    }

    /// What a discovery through the backend table found (``SensorBackends/discover(_:)``; the
    /// daemon makes one at start and per udev event and hands it to every sensor) says:
    /// `accelerometer`, what ``isPresent()`` says; `posture`, whether the posture can be
    /// measured: a display accelerometer, and a base accelerometer or a usable hinge-angle channel
    /// (``HingeAngleChannel``) beside it, or the machine's own tablet-mode switch. Reads nothing.
    public func presence(in found: DiscoveredSensors) -> (accelerometer: Bool, posture: Bool) {
        let planned = plan(settings: settings, sensors: found.motion)
        // A convertible: a measured angle beside the display's accelerometer, or the machine's
        // own tablet-mode switch (issue 39: most convertibles have one accelerometer).
        let posture = (planned.choice.accelerometer != nil && (planned.choice.base != nil || found.usableHinge != nil))
            || !found.realTabletModeSwitches.isEmpty
        return (planned.plan != nil, posture)
    }

    /// What ``open()`` would use now, and why (for `orientationd --list-sensors`), with `settings`
    /// (default: the current ones). The enumeration runs on an owner thread of its own.
    public func plan(settings: IIOSettings? = nil) async throws(SensorError) -> (sensors: [SensorDescription], choice: SensorChoice, plan: IIOReadPlan?, matrix: MountMatrix.Selection?) {
        let settings = settings ?? self.settings
        let sensors = try await OwnerThread.run(name: "od-udev-scan") { () throws(SensorError) in try UdevDiscovery.sensors() }
        return plan(settings: settings, sensors: sensors)
    }

    private func plan(settings: IIOSettings, sensors: [SensorDescription]) -> (sensors: [SensorDescription], choice: SensorChoice, plan: IIOReadPlan?, matrix: MountMatrix.Selection?) {
        let choice = SensorChoice.choose(from: sensors, selector: settings.selector)
        guard let accel = choice.accelerometer, let backend = SensorBackends.backend(of: accel) else { return (sensors, choice, nil, nil) }
        var candidates: [MountMatrix.Candidate] = []
        if let configured = settings.mountMatrix { candidates.append(.init(source: configured.source, text: configured.text)) }
        candidates += accel.mountMatrixCandidates.map { .init(source: $0.source, text: $0.text) }
        let matrix = MountMatrix.select(from: candidates)
        let plan = backend.readPlan(accel, settings: settings, matrix: matrix, pollInstead: pollNext.withLock { $0.contains(accel.id) })
        return (sensors, choice, plan, matrix)
    }

    /// True when the last ``open()`` found no display accelerometer (the sensor is absent, not
    /// broken).
    public var lastOpenFoundNoSensor: Bool { foundNoSensor.load(ordering: .acquiring) }
    private let foundNoSensor = Atomic<Bool>(false)

    public func open() async throws -> any SampleStream {
        try await open(consumer: nil)
    }

    /// `[sensor] still-interval` (``SampleRateGovernor``): a polled or evdev accelerometer is read
    /// that seldom while the device lies still.
    public var rateGovernor: SampleRateGovernor.Configuration { settings.rateGovernor }

    public func open(consumer: (any SampleConsumer)?) async throws -> any SampleStream {
        let settings = self.settings  // one snapshot per open
        let (_, choice, plan, matrix) = try await plan(settings: settings)
        // Each warning once, not on every retry (issue 27: a selector matching nothing repeated
        // its warning every few seconds); a new one (another selector after a reload) is said.
        for warning in choice.warnings where warned.withLock({ $0.insert(warning).inserted }) { logger.warning("\(warning)") }
        guard let plan, let accel = choice.accelerometer, let matrix else {
            foundNoSensor.store(true, ordering: .releasing)
            throw settings.selector.map { SensorError.noConfiguredSensor($0) } ?? SensorError.noAccelerometer
        }
        foundNoSensor.store(false, ordering: .releasing)
        for (source, reason) in matrix.rejected {
            logger.warning("ignoring an invalid mount matrix", metadata: ["source": "\(source)", "reason": "\(reason)"])
        }
        guard let backend = SensorBackends.backend(of: accel) else { throw SensorError.noAccelerometer }
        logPolledFallback(accel, plan: plan, settings: settings)
        await prepare(accel, backend: backend, plan: plan, settings: settings)
        let opening = AccelerometerOpening(sensor: accel, choice: choice, plan: plan, matrix: matrix, settings: settings,
                                           consumer: consumer, clocks: clocks, logger: logger)
        let stream = try await openWatched(opening, backend: backend)
        opened.withLock { $0 = opening.displayName }
        return stream
    }

    /// Opens through the backend; a buffered stream (in `auto` mode) is watched, and one that
    /// fails before delivering anything makes the sensor's next open polled
    /// (``readsPolledNext(_:)``). The display's and the base's opens share it (issue 36: the base
    /// had no polled fallback, so a silent base buffer left the posture failed).
    private func openWatched(_ opening: AccelerometerOpening, backend: any SensorBackend.Type) async throws -> any SampleStream {
        guard case .buffered = opening.plan.mode, opening.settings.mode == .auto else { return try await backend.openAccelerometer(opening) }
        // Whether the buffer delivered anything is seen on the way to the consumer (or out of
        // the stream, without one).
        var opening = opening
        let delivered = DeliveryWatch.Delivered()
        opening.consumer = opening.consumer.map { DeliveryWatch.Counting(inner: $0, delivered: delivered) }
        let stream = try await backend.openAccelerometer(opening)
        let id = opening.sensor.id
        return DeliveryWatch(stream, delivered: delivered) { [self] in pollNext.withLock { _ = $0.insert(id) } }
    }

    /// Whether the next open of the sensor `id` reads it polled: its buffer delivered nothing
    /// last time. The posture reopens its base at once then, as the pipeline reopens the display.
    public func readsPolledNext(_ id: String) -> Bool {
        pollNext.withLock { $0.contains(id) }
    }

    /// The polled fallback taken now for `sensor` (its buffer delivered nothing last time), said
    /// once per fallback.
    private func logPolledFallback(_ sensor: SensorDescription, plan: IIOReadPlan, settings: IIOSettings) {
        if case .polled = plan.mode, sensor.hasBuffer, pollNext.withLock({ $0.remove(sensor.id) }) != nil {
            logger.warning("the buffer delivered nothing; reading polled this time, buffered again on the next open",
                           metadata: ["device": "\(sensor.id)", "poll-rate": "\(settings.pollRate)"])
        }
    }

    /// Opens the base accelerometer of a convertible (``SensorChoice/base``), found anew, for the
    /// posture (issue 30): read through its own backend row with its own mount matrix (udev's
    /// `ACCEL_MOUNT_MATRIX` for a base sensor follows the hwdb's base convention; the configured
    /// `mount-matrix` is the display's), every sample to `consumer` on its reader thread.
    /// - Returns: the stream, the sensor and the mount matrix applied, or `nil` when there is no
    ///   display and base pair now (a machine whose hinge angle stands in for the base).
    /// - Throws: what discovery or opening it throws.
    public func openBase(consumer: any SampleConsumer) async throws
        -> (stream: any SampleStream, sensor: SensorDescription, matrix: MountMatrix.Selection)? {
        // One snapshot per open: the display's settings choose the pair; the base is read with
        // those of how to read, without the display's own (issue 36: the base was read through
        // the display's `scale`).
        let snapshot = self.settings
        let (_, choice, _, _) = try await plan(settings: snapshot)
        let settings = snapshot.forBase
        guard choice.accelerometer != nil, let base = choice.base, let backend = SensorBackends.backend(of: base) else { return nil }
        let matrix = MountMatrix.select(from: base.mountMatrixCandidates.map { .init(source: $0.source, text: $0.text) })
        for (source, reason) in matrix.rejected {
            logger.warning("ignoring an invalid mount matrix", metadata: ["device": "\(base.id)", "source": "\(source)", "reason": "\(reason)"])
        }
        var plan = backend.readPlan(base, settings: settings, matrix: matrix, pollInstead: readsPolledNext(base.id))
        plan.readsGyroscope = false
        logPolledFallback(base, plan: plan, settings: settings)
        await prepare(base, backend: backend, plan: plan, settings: settings)
        // No gyroscope merged into the base's readings: the choice given to the row has none.
        let opening = AccelerometerOpening(sensor: base, choice: SensorChoice(accelerometer: base, gyroscope: nil, reasons: [:], warnings: []),
                                           plan: plan, matrix: matrix, settings: settings, consumer: consumer, clocks: clocks, logger: logger)
        return (try await openWatched(opening, backend: backend), base, matrix)
    }

    /// The machine's first usable hinge-angle channel (cros-ec lid angle, HID hinge), if any
    /// (libudev blocks: an owner thread).
    public static func hingeChannelOnCallingThread() -> HingeAngleChannel? {
        (try? SensorBackends.discover([.hinge]))?.usableHinge
    }

    /// What iio-sensor-proxy does to the accelerometer when it starts, done now (the daemon's
    /// start): the backend's ``SensorBackend/prepare(_:plan:settings:logger:)`` (a polled IIO
    /// accelerometer gets its sampling frequency raised to 10 Hz or more,
    /// ``PolledSamplingFrequency``), so that it is right before anyone claims it. Every
    /// ``open()`` does the same again.
    /// - Returns: what ``isPresent()`` would say, from the same enumeration (the daemon's start
    ///   needs both), or `nil` when discovery failed.
    @discardableResult
    public func prepare() async -> Bool? {
        let settings = self.settings
        guard let found = try? await plan(settings: settings) else { return nil }
        if found.plan != nil, let accel = found.choice.accelerometer { chosen.withLock { $0 = "\(accel.id) (\(accel.name))" } }
        guard let plan = found.plan, let accel = found.choice.accelerometer, let backend = SensorBackends.backend(of: accel) else {
            return found.plan != nil
        }
        await prepare(accel, backend: backend, plan: plan, settings: settings)
        return true
    }

    /// The backend's preparation, on an owner thread (sysfs I/O blocks).
    private func prepare(_ accel: SensorDescription, backend: any SensorBackend.Type, plan: IIOReadPlan, settings: IIOSettings) async {
        let logger = self.logger
        _ = await OwnerThread.run(name: "od-udev-scan") { backend.prepare(accel, plan: plan, settings: settings, logger: logger) }
    }

    /// Notes a buffered stream that failed before delivering its first sample.
    final class DeliveryWatch: SampleStream {
        /// Set by the first sample, on whichever thread sees it.
        final class Delivered: Sendable {
            private let flag = Atomic<Bool>(false)
            func set() { if !flag.load(ordering: .relaxed) { flag.store(true, ordering: .relaxed) } }
            var value: Bool { flag.load(ordering: .relaxed) }
        }

        /// The consumer's side: notes the first sample on the reader thread.
        struct Counting: SampleConsumer {
            let inner: any SampleConsumer
            let delivered: Delivered
            func consume(_ sample: Sample) -> Double? {
                delivered.set()
                return inner.consume(sample)
            }

            func readerCanBeWoken(by wake: @escaping @Sendable () -> Void) {
                inner.readerCanBeWoken(by: wake)
            }
        }

        private let inner: any SampleStream
        private let delivered: Delivered
        private let onSilentFailure: @Sendable () -> Void

        init(_ inner: any SampleStream, delivered: Delivered, onSilentFailure: @escaping @Sendable () -> Void) {
            self.inner = inner
            self.delivered = delivered
            self.onSilentFailure = onSilentFailure
        }

        func next() async throws -> Sample? {
            do {
                let sample = try await inner.next()
                if sample != nil { delivered.set() }
                return sample
            } catch {
                // A resume is no sign of a silent buffer: it reopens buffered.
                if !delivered.value, !(error is CancellationError), (error as? SensorError)?.reopensAtOnce != true { onSilentFailure() }
                throw error
            }
        }

        func close() async { await inner.close() }

        var deviceName: String? { inner.deviceName }
    }
}
