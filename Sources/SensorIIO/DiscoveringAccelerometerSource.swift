import Logging
import OrientationCore
import OwnerThreads
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
/// only through an owner thread of its own (``plan(settings:)``, ``isPresent()``); the one
/// synchronous form, ``isPresentOnCallingThread()``, is for code already on an owner thread (the
/// udev monitor's). Each ``open()`` takes one snapshot of the settings, so a reload in between
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

    /// ``isPresent()`` on the calling thread, which it blocks while libudev enumerates: only for
    /// code that runs on an owner thread already (the udev monitor's event callback).
    public func isPresentOnCallingThread() -> Bool {
        (try? plan(settings: settings, sensors: UdevDiscovery.sensors()))?.plan != nil
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
        guard let accel = choice.accelerometer else { return (sensors, choice, nil, nil) }
        var candidates: [MountMatrix.Candidate] = []
        if let configured = settings.mountMatrix { candidates.append(.init(source: configured.source, text: configured.text)) }
        candidates += accel.mountMatrixCandidates.map { .init(source: $0.source, text: $0.text) }
        let matrix = MountMatrix.select(from: candidates)
        if accel.bus == .input {
            // Read by EvdevSensorSource in open(); the plan says so for --list-sensors.
            var plan = IIOReadPlan(device: accel.id, mode: .polled(rate: settings.pollRate), mountMatrix: matrix.matrix, stallTimeout: settings.stallTimeout)
            plan.scale = settings.scale
            return (sensors, choice, plan, matrix)
        }
        // A buffer-only device (no raw attributes) is read through its buffer whatever the mode.
        let fallback = settings.mode != .buffered && accel.hasBuffer && accel.hasRawAttributes && pollNext.withLock { $0.contains(accel.id) }
        let buffered = !accel.hasRawAttributes
            || (!fallback && (settings.mode == .buffered || (settings.mode == .auto && accel.hasBuffer)))
        var plan = IIOReadPlan(device: accel.id, mode: buffered ? .buffered(batch: settings.batch) : .polled(rate: settings.pollRate),
                               samplingFrequency: buffered ? settings.samplingFrequency : nil, mountMatrix: matrix.matrix,
                               readsGyroscope: accel.channels.contains("anglvel_x"), stallTimeout: settings.stallTimeout)
        plan.scale = settings.scale
        plan.sysfsPath = accel.sysfsPath
        // A polled device's "any motion" interrupt lets a still device cost no wake-up at all.
        plan.watchesMotionEvents = !buffered && settings.rateGovernor.isEnabled
        return (sensors, choice, plan, matrix)
    }

    /// The plan for a gyroscope on a device of its own, read beside the accelerometer and merged
    /// by timestamp, or `nil` (none, the accelerometer's own IMU channels, or one read the other
    /// way, buffered against polled). `open()` and `orientationd --record` both use it, so a
    /// recording holds exactly the samples the detector gets.
    public static func gyroscopePlan(choice: SensorChoice, plan: IIOReadPlan, matrix: MountMatrix.Selection) -> IIOReadPlan? {
        guard let accel = choice.accelerometer, accel.bus == .iio, let gyro = choice.gyroscope, gyro.id != accel.id,
              gyro.hasBuffer == accel.hasBuffer else { return nil }
        // Its own mount matrix when it has one, else the accelerometer's (same board).
        let own = MountMatrix.select(from: gyro.mountMatrixCandidates.map { .init(source: $0.source, text: $0.text) })
        return IIOReadPlan(device: gyro.id, mode: plan.mode, samplingFrequency: plan.samplingFrequency,
                           mountMatrix: own.source == "identity" ? matrix.matrix : own.matrix, stallTimeout: plan.stallTimeout)
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
        if accel.bus == .input, let node = accel.deviceNode {
            // An input-subsystem accelerometer: evdev, not libiio (issue 16, item 2).
            logger.info("opening sensor", metadata: ["device": "\(accel.id)", "name": "\(accel.name)", "mode": "evdev \(node)",
                                                     "mount-matrix": "\(matrix.matrix)", "mount-matrix-source": "\(matrix.source)"])
            let stream = try await EvdevSensorSource(node: node, name: "\(accel.id) (\(accel.name))", mountMatrix: matrix.matrix,
                                                     rate: settings.pollRate, scale: settings.scale, stallTimeout: settings.stallTimeout,
                                                     clocks: clocks).open(consumer: consumer)
            opened.withLock { $0 = "\(accel.id) (\(accel.name))" }
            return stream
        }
        let gyroPlan = Self.gyroscopePlan(choice: choice, plan: plan, matrix: matrix)
        if let gyroPlan, let gyro = choice.gyroscope {
            logger.info("merging gyroscope", metadata: ["gyroscope": "\(gyroPlan.device)", "name": "\(gyro.name)"])
        }
        if case .polled = plan.mode, accel.hasBuffer, pollNext.withLock({ $0.remove(accel.id) }) != nil {
            logger.warning("the buffer delivered nothing; reading polled this time, buffered again on the next open",
                           metadata: ["device": "\(accel.id)", "poll-rate": "\(settings.pollRate)"])
        }
        if settings.mode == .polled, !accel.hasRawAttributes {
            logger.warning("mode = polled, but the device has no raw attributes to poll: reading its buffer", metadata: ["device": "\(accel.id)"])
        }
        if case .polled = plan.mode { await adjustSamplingFrequency(accel, settings: settings) }
        logger.info("opening sensor", metadata: [
            "device": "\(accel.id)", "name": "\(accel.name)", "mode": "\(plan.mode)",
            "mount-matrix": "\(matrix.matrix)", "mount-matrix-source": "\(matrix.source)",
        ])
        let source = IIOSensorSource(plan: plan, gyroscope: gyroPlan, name: "\(accel.id) (\(accel.name))", clocks: clocks)
        guard case .buffered = plan.mode, settings.mode == .auto else {
            let stream = try await source.open(consumer: consumer)
            opened.withLock { $0 = "\(accel.id) (\(accel.name))" }
            return stream
        }
        // Whether the buffer delivered anything is seen on the way to the consumer (or out of
        // the stream, without one).
        let delivered = DeliveryWatch.Delivered()
        let stream = try await source.open(consumer: consumer.map { DeliveryWatch.Counting(inner: $0, delivered: delivered) })
        opened.withLock { $0 = "\(accel.id) (\(accel.name))" }
        let id = accel.id
        return DeliveryWatch(stream, delivered: delivered) { [self] in pollNext.withLock { _ = $0.insert(id) } }
    }

    /// What iio-sensor-proxy does to the accelerometer when it starts, done now (the daemon's
    /// start): a polled one gets its sampling frequency raised to 10 Hz or more
    /// (``PolledSamplingFrequency``), so that it is right before anyone claims it. Every
    /// ``open()`` does the same again. Nothing happens without a polled accelerometer.
    /// - Returns: what ``isPresent()`` would say, from the same enumeration (the daemon's start
    ///   needs both), or `nil` when discovery failed.
    @discardableResult
    public func prepare() async -> Bool? {
        let settings = self.settings
        guard let found = try? await plan(settings: settings) else { return nil }
        guard let plan = found.plan, case .polled = plan.mode, let accel = found.choice.accelerometer, accel.bus == .iio else {
            return found.plan != nil
        }
        await adjustSamplingFrequency(accel, settings: settings)
        return true
    }

    /// Sets a polled accelerometer's sampling frequency (on an owner thread: sysfs I/O blocks).
    private func adjustSamplingFrequency(_ accel: SensorDescription, settings: IIOSettings) async {
        let path = accel.sysfsPath
        let configured = settings.samplingFrequencyIsExplicit ? settings.samplingFrequency : nil
        guard let change = await OwnerThread.run(name: "od-udev-scan", { PolledSamplingFrequency.apply(sysfsPath: path, configured: configured) }) ?? nil else { return }
        let metadata: Logger.Metadata = ["device": "\(accel.id)", "attribute": "\(change.attribute)", "from": "\(change.from)", "to": "\(change.to)"]
        if !change.written {
            logger.warning("the driver refused the sampling frequency; polling it as it is", metadata: metadata)
        } else if configured != nil {
            logger.info("sampling frequency set as configured", metadata: metadata)
        } else {
            logger.notice("sampling frequency below \(SamplingFrequencyFloor.text(SamplingFrequencyFloor.minimum)) Hz raised, as iio-sensor-proxy does", metadata: metadata)
        }
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
