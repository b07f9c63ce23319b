import Logging
import OrientationCore
import Synchronization

/// Runs a ``SensorSource`` through an ``OrientationDetector`` while somebody listens.
///
/// Contract:
/// - The sensor is open exactly while the last claim said `true` (the first subscriber
///   arrived, and the last one has not left); a replay therefore pauses with no subscriber.
/// - Claims, restarts and the end go through ``Commands``, which exist before the pipeline:
///   whoever publishes (the socket server) can be handed ``Commands/setClaimed(_:)`` before the
///   pipeline is built, and a claim made in between waits in the stream (socket activation
///   queues the first client before the daemon starts; issue 10).
/// - Every detector event goes to `sink` as ``Event/orientation(_:)``, in order.
/// - A sensor that fails is reported (``Event/sensorFailed(_:)``, which publishes `unknown`),
///   and reopened with a growing delay while still claimed; the daemon never exits for it.
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
    }

    /// The pipeline's inbox: claims, restarts (hotplug) and the end. Thread-safe; what is sent
    /// before ``SensorPipeline/run()`` starts waits for it.
    public struct Commands: Sendable {
        enum Command: Sendable { case claim(Bool), restart, reconfigure(OrientationDetector.Configuration) }
        let stream: AsyncStream<Command>
        private let continuation: AsyncStream<Command>.Continuation

        public init() {
            // Claims are level-triggered, so only the newest few matter.
            (stream, continuation) = AsyncStream.makeStream(of: Command.self, bufferingPolicy: .bufferingNewest(16))
        }

        /// Someone listens (`true`) or nobody does (`false`).
        public func setClaimed(_ claimed: Bool) { continuation.yield(.claim(claimed)) }

        /// If the sensor is claimed, close and reopen it now (a sensor appeared, or its
        /// properties such as the mount matrix changed); also cuts short a retry's wait.
        public func restart() { continuation.yield(.restart) }

        /// Replaces the detector configuration (a reload); ``SensorPipeline/reconfigure(_:)``
        /// validates it first.
        func reconfigure(_ configuration: OrientationDetector.Configuration) { continuation.yield(.reconfigure(configuration)) }

        /// Ends ``SensorPipeline/run()`` (after closing the sensor).
        public func finish() { continuation.finish() }
    }

    public let source: any SensorSource
    /// The pipeline's inbox (also reachable through the methods below).
    public let commands: Commands
    private let configuration: OrientationDetector.Configuration
    /// The configuration last asked for (``reconfigure(_:)`` skips an unchanged one).
    private let requested: Mutex<OrientationDetector.Configuration>
    /// Whether the pipeline makes progress (read by the watchdog).
    public let health = PipelineHealth()
    private let sink: @Sendable (Event) -> Void
    private let logger: Logger
    /// How the back-off after a failure waits.
    private let sleeper: Sleeper

    public init(source: any SensorSource, configuration: OrientationDetector.Configuration, logger: Logger,
                commands: Commands = Commands(), sleeper: Sleeper = .task,
                sink: @escaping @Sendable (Event) -> Void) throws(ConfigurationError) {
        _ = try OrientationDetector(configuration: configuration)  // validate now, not on first claim
        self.source = source
        self.configuration = configuration
        requested = Mutex(configuration)
        self.sink = sink
        self.logger = logger
        self.commands = commands
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

    /// The service loop.
    public func run() async {
        var reader: Task<Void, Never>? = nil
        var claimed = false
        var configuration = self.configuration
        for await command in commands.stream {
            switch command {
            case .claim(let value):
                claimed = value
                if claimed, reader == nil {
                    reader = Task { [configuration] in await self.readWhileClaimed(configuration) }
                } else if !claimed, let running = reader {
                    running.cancel()
                    await running.value
                    reader = nil
                }
            case .restart, .reconfigure:
                if case .reconfigure(let new) = command { configuration = new }
                guard claimed else { continue }
                if let running = reader {
                    running.cancel()
                    await running.value
                }
                logger.info(command.isRestart ? "reopening the sensor (hotplug)" : "reopening the sensor (new detector settings)")
                reader = Task { [configuration] in await self.readWhileClaimed(configuration) }
            }
        }
        reader?.cancel()
        await reader?.value
        health.expectProgress(within: nil)
    }

    /// Ends ``run()`` (after closing the sensor).
    public func finish() {
        commands.finish()
    }

    /// The stream (and the libiio or file handle behind it) stays in the one task that opened
    /// it (Swift 6 checks this).
    private func readWhileClaimed(_ configuration: OrientationDetector.Configuration) async {
        defer { health.expectProgress(within: nil) }
        var detector = try! OrientationDetector(configuration: configuration)  // validated in init and reconfigure(_:)
        var delay = 0.5
        let limit = source.progressLimit
        while !Task.isCancelled {
            let stream: any SampleStream
            health.expectProgress(within: limit)
            do {
                stream = try await source.open()
            } catch {
                await backOff(failure: "cannot open \(source.name): \(error)", delay: &delay)
                continue
            }
            logger.info("sensor opened", metadata: ["sensor": "\(source.name)"])
            sink(.sensorActive(true))
            detector.reset()
            var failure: Error? = nil
            do {
                health.expectProgress(within: limit)
                while let sample = try await stream.next() {
                    health.expectProgress(within: limit)
                    delay = 0.5
                    if let event = detector.process(sample) { sink(.orientation(event)) }
                }
            } catch {
                failure = error
            }
            // Close before anything else, in particular before backing off: a failed or stalled
            // sensor must not stay open (its buffer enabled) while we wait to retry.
            await stream.close()
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
            logger.info("source finished", metadata: ["sensor": "\(source.name)", "samples": "\(detector.statistics.samples)"])
            sink(.sourceFinished)
            return
        }
    }

    /// Reports a failure (the daemon publishes `unknown`), waits `delay`, then doubles it (up to
    /// 30 s) for the next failure; a successful sample resets it.
    private func backOff(failure: String, delay: inout Double) async {
        logger.warning("sensor failure; retrying", metadata: ["error": "\(failure)", "retry-in": "\(delay)s"])
        sink(.sensorFailed(failure))
        health.expectProgress(within: source.progressLimit.map { $0 + delay })
        try? await sleeper.sleep(seconds: delay)
        delay = min(delay * 2, 30)
    }
}

extension SensorPipeline.Commands.Command {
    var isRestart: Bool {
        if case .restart = self { return true }
        return false
    }
}
