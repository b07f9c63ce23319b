import Logging
import OrientationCore
import SensorLifecycle
import Synchronization

/// Runs a ``SensorSource`` through an ``OrientationDetector`` while somebody listens.
///
/// Contract:
/// - The sensor is open while the last claim said `true` (the first subscriber arrived, and
///   the last one has not left), and for `releaseDelay` seconds (wall time) after the last
///   release: a claim within that time keeps it open, so a client toggling its claim cannot
///   reopen the sensor faster than it delivers a sample (issue 18: a claim/release loop opened
///   and closed it 7,580 times in 10 s). A replay therefore pauses once nobody listens.
/// - Claims, restarts and the end go through ``Commands``, which exist before the pipeline:
///   whoever publishes (the socket server) can be handed ``Commands/setClaimed(_:)`` before the
///   pipeline is built, and a claim made in between waits in the stream (socket activation
///   queues the first client before the daemon starts; issue 10).
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
/// - ``run()`` returns after ``Commands/finish()`` (or ``finish()``), with the sensor closed.
///
/// Not an actor: it protects no mutable state. ``run()`` owns the loop's state in its own frame,
/// and the sensor's stream stays in the one task that opened it.
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

    /// The pipeline's inbox: claims, restarts (hotplug), new detector settings and the end.
    /// Thread-safe; what is sent before ``SensorPipeline/run()`` starts waits for it.
    ///
    /// Nothing sent here can be lost (issue 22): the inbox keeps the *desired* state under a lock
    /// (the newest claim, how many restarts were asked for, the newest configuration, whether to
    /// finish), and its stream carries only wake-ups. However many commands arrive while the
    /// pipeline is busy (a burst of hotplug restarts, claims toggled by thousands of clients),
    /// the next wake-up finds the newest of each, so a claimed sensor always ends up open.
    /// (A stream of the commands themselves, bounded to the newest 16, could drop the one
    /// `claim(true)` that mattered.)
    public struct Commands: Sendable {
        /// What the pipeline should be doing; the run loop reconciles with it on every wake-up.
        struct Desired: Sendable {
            /// The claim and when it was last released (seconds on ``Commands/clock``): the
            /// sensor closes `releaseDelay` after it, by the rule every sensor kind shares.
            var release = ReleaseDelay()
            var claimed: Bool { release.claimed }
            /// Counts ``Commands/restart()`` calls: the loop restarts when it has seen fewer.
            var restarts = 0
            /// The newest configuration not yet taken by the loop.
            var configuration: OrientationDetector.Configuration? = nil
            var finished = false
        }

        private final class Inbox: Sendable {
            let desired = Mutex(Desired())
            let wakeups: AsyncStream<Void>
            let continuation: AsyncStream<Void>.Continuation

            init() {
                // One pending wake-up is enough: the state it points to is read when it is taken.
                (wakeups, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            }
        }

        private let inbox = Inbox()

        public init() {}

        /// Seconds on the monotonic clock (this is the release delay, not detection).
        static func clock() -> Double {
            let elapsed = (ContinuousClock.now - origin).components
            return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        }
        private static let origin = ContinuousClock.now

        var wakeups: AsyncStream<Void> { inbox.wakeups }

        /// The desired state now; the configuration is handed over once (the loop keeps it).
        func take() -> Desired {
            inbox.desired.withLock { desired in
                defer { desired.configuration = nil }
                return desired
            }
        }

        private func update(_ change: (inout Desired) -> Void) {
            inbox.desired.withLock { change(&$0) }
            inbox.continuation.yield()
        }

        /// Someone listens (`true`) or nobody does (`false`). Level-triggered: only the newest
        /// value matters; the release is dated, for the release delay.
        public func setClaimed(_ claimed: Bool) {
            let now = Self.clock()
            update { $0.release.update(claimed: claimed, now: now) }
        }

        /// Wakes the run loop to look at the desired state again (the release delay ran out).
        func wake() { inbox.continuation.yield() }

        /// If the sensor is claimed, close and reopen it now (a sensor appeared, or its
        /// properties such as the mount matrix changed); also cuts short a retry's wait.
        public func restart() { update { $0.restarts &+= 1 } }

        /// Replaces the detector configuration (a reload); ``SensorPipeline/reconfigure(_:)``
        /// validates it first.
        func reconfigure(_ configuration: OrientationDetector.Configuration) { update { $0.configuration = configuration } }

        /// Ends ``SensorPipeline/run()`` (after closing the sensor). Idempotent.
        public func finish() {
            inbox.desired.withLock { $0.finished = true }
            inbox.continuation.yield()
            inbox.continuation.finish()
        }
    }

    public let source: any SensorSource
    /// The pipeline's inbox (also reachable through the methods below).
    public let commands: Commands
    private let configuration: OrientationDetector.Configuration
    /// The configuration last asked for (``reconfigure(_:)`` skips an unchanged one).
    private let requested: Mutex<OrientationDetector.Configuration>
    /// Whether the pipeline makes progress (read by the watchdog).
    public let health = PipelineHealth()
    /// A second reader of every sample of the open sensor (the posture's display readings).
    public let sampleTap = SampleTap()
    private let sink: @Sendable (Event) -> Void
    private let logger: Logger
    /// How the back-off after a failure and the release delay wait.
    private let sleeper: Sleeper
    /// Seconds the sensor stays open after the last release (see the contract).
    public let releaseDelay: Double

    /// The release delay the daemon uses: longer than a slow (5 Hz) sensor takes to deliver its
    /// first samples, short enough that a sensor nobody wants is soon closed.
    public static let defaultReleaseDelay = 1.0
    /// Devices already warned about a scale error (one warning per device and daemon run).
    private let scaleWarned = Mutex<Set<String>>([])
    /// The failure that began the current outage, `nil` while the sensor works (or has not
    /// failed yet): kept across reader tasks, so a new claim during an outage logs nothing new.
    private let outage = Mutex<String?>(nil)

    public init(source: any SensorSource, configuration: OrientationDetector.Configuration, logger: Logger,
                commands: Commands = Commands(), sleeper: Sleeper = .task, releaseDelay: Double = SensorPipeline.defaultReleaseDelay,
                sink: @escaping @Sendable (Event) -> Void) throws(ConfigurationError) {
        _ = try OrientationDetector(configuration: configuration)  // validate now, not on first claim
        self.source = source
        self.configuration = configuration
        requested = Mutex(configuration)
        self.sink = sink
        self.logger = logger
        self.commands = commands
        self.sleeper = sleeper
        self.releaseDelay = releaseDelay
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
        if changed { commands.reconfigure(configuration) }
    }

    /// Thread-safe: records that someone listens (`true`) or nobody does (`false`).
    public func setClaimed(_ claimed: Bool) {
        commands.setClaimed(claimed)
    }

    /// Thread-safe: see ``Commands/restart()``.
    public func restart() {
        commands.restart()
    }

    /// The service loop: on every wake-up, makes the sensor's state match the inbox's desired
    /// state (open while claimed; reopened after a restart or a new configuration).
    public func run() async {
        var reader: Task<Void, Never>? = nil
        var configuration = self.configuration
        var restartsSeen = 0
        /// Wakes the loop when the release delay has run out.
        var releaseTimer: Task<Void, Never>? = nil
        func stopReader() async {
            reader?.cancel()
            await reader?.value
            reader = nil
        }
        for await _ in commands.wakeups {
            let desired = commands.take()
            if desired.finished { break }
            let reconfigured = desired.configuration.map { new in
                defer { configuration = new }
                return new != configuration
            } ?? false
            let restart = desired.restarts != restartsSeen
            restartsSeen = desired.restarts
            releaseTimer?.cancel()
            releaseTimer = nil
            if !desired.claimed {
                guard reader != nil else { continue }
                let wait = desired.release.remaining(after: releaseDelay, now: Commands.clock()) ?? 0
                if restart || reconfigured || wait <= 0 {
                    await stopReader()
                } else {
                    // Kept open a while: a claim before then costs no reopen.
                    releaseTimer = Task { [sleeper, commands] in
                        if (try? await sleeper.sleep(seconds: max(wait, 0.001))) != nil { commands.wake() }
                    }
                }
            } else if reader == nil {
                reader = Task { [configuration] in await self.readWhileClaimed(configuration) }
            } else if restart || reconfigured {
                await stopReader()
                logger.info(restart ? "reopening the sensor (hotplug)" : "reopening the sensor (new detector settings)")
                reader = Task { [configuration] in await self.readWhileClaimed(configuration) }
            }
        }
        releaseTimer?.cancel()
        await stopReader()
        health.expectProgress(within: nil)
    }

    /// Ends ``run()`` (after closing the sensor).
    public func finish() {
        commands.finish()
    }

    /// The stream (and the libiio or file handle behind it) stays in the one task that opened
    /// it (Swift 6 checks this). The samples themselves are handled on the reader's thread by a
    /// ``DetectionStage`` (issue 28: one wake-up per sample); this task only opens, waits for
    /// the end, and closes.
    private func readWhileClaimed(_ configuration: OrientationDetector.Configuration) async {
        defer { health.expectProgress(within: nil) }
        // Validated in init and reconfigure(_:), so this cannot fail today; should a later change
        // let an invalid configuration through, the sensor is reported failed, not the daemon.
        let detector: OrientationDetector
        do {
            detector = try OrientationDetector(configuration: configuration)
        } catch {
            logger.critical("invalid detector configuration", metadata: ["error": "\(error)"])
            sink(.sensorFailed("invalid detector configuration: \(error)"))
            return
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
            if Task.isCancelled || failure is CancellationError { return }
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
            return
        }
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
