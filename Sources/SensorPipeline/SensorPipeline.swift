import Logging
import OrientationCore
import SensorLifecycle
import Synchronization

/// Runs a ``SensorSource`` through an ``OrientationDetector`` while somebody listens.
///
/// The display accelerometer's kind of ``ClaimedSensor``: the lifecycle (claimers, the release
/// delay, one session at a time, restarts) is ``sensor``'s, the same as every other sensor's;
/// this type is the session: open the source, detect, publish, retry a failing sensor.
///
/// Contract:
/// - The sensor is open while claimed (``ClaimedSensor/setClaimed(_:_:)`` by any claimer: the
///   socket's subscribers, D-Bus claimers, the posture), and for ``releaseDelay`` seconds after
///   the last release: a claim within that time keeps it open, so a client toggling its claim
///   cannot reopen the sensor faster than it delivers a sample (issue 18: a claim/release loop
///   opened and closed it 7,580 times in 10 s). A replay therefore pauses once nobody listens.
/// - The ``ClaimedSensor`` can exist before the pipeline (pass it to `init`): whoever publishes
///   (the socket server) can claim before the pipeline is built, and the claim waits in it
///   (socket activation queues the first client before the daemon starts; issue 10).
/// - Every detector event goes to `sink` as ``Event/orientation(_:)``, in order.
/// - Samples pass through a ``GravityNormalizer`` before the detector (a wrong or missing
///   `in_accel_scale` must not hold the acceleration gate forever); when it starts rescaling a
///   device, one warning per device names it and the fix. Their tilt class (``TiltTracker``,
///   from the normalised samples) goes to `sink` as ``Event/tilt(_:)`` when it changes.
/// - A sensor that fails is reported (``Event/sensorFailed(_:)``, which publishes `unknown`),
///   and reopened with a growing delay while still claimed; the daemon never exits for it.
/// - The log says an outage twice (issue 40): a warning at its first failure and a notice at
///   the first open that works again. The retries in between, however many claims come and go
///   (each client of a machine without a sensor started the back-off afresh, five warnings in
///   ten seconds, then one every 30 s), log at debug only.
/// - A ``SensorStreamInterruption`` that ``SensorStreamInterruption/reopensAtOnce`` (a system
///   resume, noticed by the IIO reader) closes the sensor and opens it again at once: no back-off,
///   no `unknown`, and a fresh detector, so nothing from before the suspend decides after it.
/// - ``reconfigure(_:)`` replaces the detector's configuration: an open sensor is
///   reopened with a fresh detector at once (as after a hotplug); a closed one uses it next time.
/// - ``health`` says whether the pipeline is making progress (the watchdog's question).
/// - ``run()`` returns after ``finish()`` (or ``ClaimedSensor/finish()``), with the sensor closed.
///
/// Not an actor: ``run()`` is the lifecycle's loop, and the sensor's stream stays in the one
/// session task that opened it.
public final class SensorPipeline: Sendable {
    /// What the pipeline tells the publisher.
    public enum Event: Sendable, Equatable {
        /// The detector published a change.
        case orientation(OrientationEvent)
        /// The sensor was opened (`true`) or closed (`false`).
        case sensorActive(Bool)
        /// The sensor failed; no orientation is known until it works again.
        case sensorFailed(String)
        /// A non-looping source delivered its last sample.
        case sourceFinished
        /// A sample carried a recorded light level or proximity level (a v2 log's replay); the
        /// publisher turns them into what clients get.
        case recordedReadings(light: Double?, proximity: Double?)
        /// iio-sensor-proxy's tilt class of the samples changed (``TiltTracker``; the first
        /// sample after each open always reports one); `undefined` after a failure.
        case tilt(AccelerometerTilt)
    }

    /// The name ``setClaimed(_:)`` claims under (tests and tools with one claimer).
    public static let claimer = "client"

    public let source: any SensorSource
    /// The sensor's lifecycle: claims, restarts, the end.
    public let sensor: ClaimedSensor
    /// The configuration last asked for: each session starts with it.
    private let requested: Mutex<OrientationDetector.Configuration>
    /// Why the next session reopens the sensor (said in the log), if it is a reopening.
    private let reopenReason = Mutex<String?>(nil)
    /// Whether the pipeline makes progress (read by the watchdog).
    public let health = PipelineHealth()
    /// A second reader of every sample of the open sensor (the posture's display readings).
    public let sampleTap = SampleTap()
    private let sink: @Sendable (Event) -> Void
    private let logger: Logger
    /// How the back-off after a failure waits.
    private let sleeper: Sleeper
    /// Seconds the sensor stays open after the last release (see the contract).
    public var releaseDelay: Double { sensor.releaseDelay }

    /// The release delay the daemon uses: longer than a slow (5 Hz) sensor takes to deliver its
    /// first samples, short enough that a sensor nobody wants is soon closed.
    public static let defaultReleaseDelay = 1.0
    /// Devices already warned about a scale error (one warning per device and daemon run).
    private let scaleWarned = Mutex<Set<String>>([])
    /// The failure that began the current outage, `nil` while the sensor works (or has not
    /// failed yet): kept across reader tasks, so a new claim during an outage logs nothing new.
    private let outage = Mutex<String?>(nil)

    /// - Parameter sensor: the lifecycle, when it must exist before the pipeline (claims made
    ///   meanwhile wait in it); by default one with `releaseDelay` and `sleeper`.
    public init(source: any SensorSource, configuration: OrientationDetector.Configuration, logger: Logger,
                sensor: ClaimedSensor? = nil, sleeper: Sleeper = .task, releaseDelay: Double = SensorPipeline.defaultReleaseDelay,
                sink: @escaping @Sendable (Event) -> Void) throws(ConfigurationError) {
        _ = try OrientationDetector(configuration: configuration)  // validate now, not on first claim
        self.source = source
        requested = Mutex(configuration)
        self.sink = sink
        self.logger = logger
        self.sensor = sensor ?? ClaimedSensor(releaseDelay: releaseDelay, sleeper: sleeper)
        self.sleeper = sleeper
    }

    /// Thread-safe: replaces the detector's configuration (a reload). An open sensor is reopened
    /// with a fresh detector at once; a closed one uses it next time.
    /// - Throws: the configuration's first problem; nothing changes then.
    /// An unchanged configuration changes nothing (the sensor stays open).
    public func reconfigure(_ configuration: OrientationDetector.Configuration) throws(ConfigurationError) {
        _ = try OrientationDetector(configuration: configuration)
        let changed = requested.withLock { current in
            defer { current = configuration }
            return current != configuration
        }
        guard changed else { return }
        restart(reason: "new detector settings")
    }

    /// Thread-safe: records that someone listens (`true`) or nobody does (`false`), as
    /// ``claimer``.
    public func setClaimed(_ claimed: Bool) {
        sensor.setClaimed(Self.claimer, claimed)
    }

    /// Thread-safe: if the sensor is open, close and reopen it now (a sensor appeared, or its
    /// properties such as the mount matrix changed); also cuts short a retry's wait.
    public func restart() {
        restart(reason: "hotplug")
    }

    /// Restarts, saying why in the log when an open sensor is reopened (a closed one opens at
    /// the next claim as a fresh open, and says nothing of it).
    private func restart(reason: String) {
        let open = sensor.status.isOpen
        reopenReason.withLock { $0 = open ? reason : nil }
        sensor.restart()
    }

    /// The service loop (``ClaimedSensor/run(_:)``): open while claimed, reopened after a
    /// restart or a new configuration. Returns after ``finish()``.
    public func run() async {
        await sensor.run { [self] generation in
            let reason = reopenReason.withLock { reason in
                defer { reason = nil }
                return reason
            }
            if let reason, generation > 1 { logger.info("reopening the sensor (\(reason))") }
            return await readWhileClaimed(requested.withLock { $0 })
        }
        health.expectProgress(within: nil)
    }

    /// Ends ``run()`` (after closing the sensor).
    public func finish() {
        sensor.finish()
    }

    /// The stream (and the libiio or file handle behind it) stays in the one task that opened
    /// it (Swift 6 checks this). The samples themselves are handled on the reader's thread by a
    /// ``DetectionStage`` (issue 28: one wake-up per sample); this task only opens, waits for
    /// the end, and closes.
    private func readWhileClaimed(_ configuration: OrientationDetector.Configuration) async -> ClaimedSensor.Ending {
        defer { health.expectProgress(within: nil) }
        // Validated in init and reconfigure(_:), so this cannot fail today; should a later change
        // let an invalid configuration through, the sensor is reported failed, not the daemon.
        let detector: OrientationDetector
        do {
            detector = try OrientationDetector(configuration: configuration)
        } catch {
            logger.critical("invalid detector configuration", metadata: ["error": "\(error)"])
            sink(.sensorFailed("invalid detector configuration: \(error)"))
            return .failed("invalid detector configuration: \(error)")
        }
        var delay = 0.5
        var samples = 0
        let limit = source.progressLimit
        while !Task.isCancelled {
            let stream: any SampleStream
            health.expectProgress(within: limit)
            // A fresh stage per open: nothing from before decides after it.
            let device = Mutex<String>(source.name)
            let stage = DetectionStage(detector: detector, governor: source.rateGovernor, health: health, progressLimit: limit, tap: sampleTap, sink: sink) {
                [self] normalizer in warnAboutScale(normalizer, device: device.withLock { $0 })
            }
            do {
                stream = try await source.open(consumer: stage)
            } catch {
                await backOff(failure: "cannot open \(source.name): \(error)", delay: &delay)
                continue
            }
            if let name = stream.deviceName { device.withLock { $0 = name } }
            logger.info("sensor opened", metadata: ["sensor": "\(source.name)"])
            let ended = outage.withLock { current in
                defer { current = nil }
                return current
            }
            if let ended {
                let name = device.withLock { $0 }
                logger.notice("sensor works again", metadata: ["sensor": "\(name)", "after": "\(ended)"])
            }
            sink(.sensorActive(true))
            stage.start()
            var failure: Error? = nil
            do {
                // The stream returns no samples (the stage took them), only its end or failure.
                while let sample = try await stream.next() { _ = stage.consume(sample) }
            } catch {
                failure = error
            }
            // Close before anything else, in particular before backing off: a failed or stalled
            // sensor must not stay open (its buffer enabled) while we wait to retry.
            await stream.close()
            if stage.samples > 0 { delay = 0.5 }
            samples += stage.samples
            sink(.sensorActive(false))
            logger.info("sensor closed", metadata: ["sensor": "\(source.name)"])
            if Task.isCancelled || failure is CancellationError { return .closed }
            if let interruption = failure as? any SensorStreamInterruption, interruption.reopensAtOnce {
                logger.notice("reopening the sensor", metadata: ["sensor": "\(source.name)", "reason": "\(interruption)"])
                continue
            }
            if let failure {
                await backOff(failure: "\(source.name) failed: \(failure)", delay: &delay)
                continue
            }
            logger.info("source finished", metadata: ["sensor": "\(source.name)", "samples": "\(samples)"])
            sink(.sourceFinished)
            return .finished
        }
        return .closed
    }

    /// Warns once per device that its readings are rescaled, with what it reads for 1 g and how
    /// to fix it for good.
    private func warnAboutScale(_ normalizer: GravityNormalizer, device: String) {
        guard scaleWarned.withLock({ $0.insert(device).inserted }) else { return }
        let measured = normalizer.deviceGravity ?? 0
        let message = "the accelerometer's scale is wrong: a still device reads \(measured) per g instead of \(normalizer.configuration.gravity) m/s²; "
            + "readings are rescaled by \(normalizer.factor). Fix: set the scale (m/s² per count) in [sensor] scale of orientationd.conf, "
            + "or report the driver's in_accel_scale to the kernel"
        logger.warning("\(message)",
                       metadata: ["device": "\(device)", "factor": "\(normalizer.factor)", "measured-g": "\(measured)"])
    }

    /// Reports a failure (the daemon publishes `unknown`), waits `delay`, then doubles it (up to
    /// 30 s) for the next failure; a successful sample resets it.
    /// Only an outage's first failure is a warning (see the contract); its retries are debug.
    private func backOff(failure: String, delay: inout Double) async {
        let begins = outage.withLock { current in
            guard current == nil else { return false }
            current = failure
            return true
        }
        logger.log(level: begins ? .warning : .debug, "sensor failure; retrying",
                   metadata: ["error": "\(failure)", "retry-in": "\(delay)s"])
        sink(.sensorFailed(failure))
        sink(.tilt(.undefined))
        health.expectProgress(within: source.progressLimit.map { $0 + delay })
        try? await sleeper.sleep(seconds: delay)
        delay = min(delay * 2, 30)
    }
}
