import Logging
import OrientationCore

/// Runs a ``SensorSource`` through an ``OrientationDetector`` while somebody listens.
///
/// Contract:
/// - The sensor is open exactly while ``setClaimed(_:)`` last said `true` (the first subscriber
///   arrived, and the last one has not left); a replay therefore pauses with no subscriber.
/// - Every detector event goes to `sink` as ``Event/orientation(_:)``, in order.
/// - A sensor that fails is reported (``Event/sensorFailed(_:)``, which publishes `unknown`),
///   and reopened with a growing delay while still claimed; the daemon never exits for it.
/// - ``run()`` returns when its task is cancelled (service shutdown).
public actor SensorPipeline {
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

    public let source: any SensorSource
    private let configuration: OrientationDetector.Configuration
    private let sink: @Sendable (Event) -> Void
    private let logger: Logger
    /// Claims, and restart requests (hotplug).
    private enum Command: Sendable { case claim(Bool), restart }
    private let claims: AsyncStream<Command>
    private let claimContinuation: AsyncStream<Command>.Continuation

    public init(source: any SensorSource, configuration: OrientationDetector.Configuration,
                logger: Logger, sink: @escaping @Sendable (Event) -> Void) throws(ConfigurationError) {
        _ = try OrientationDetector(configuration: configuration)  // validate now, not on first claim
        self.source = source
        self.configuration = configuration
        self.sink = sink
        self.logger = logger
        (claims, claimContinuation) = AsyncStream.makeStream(of: Command.self, bufferingPolicy: .bufferingNewest(16))
    }

    /// Thread-safe: records that someone listens (`true`) or nobody does (`false`).
    public nonisolated func setClaimed(_ claimed: Bool) {
        claimContinuation.yield(.claim(claimed))
    }

    /// Thread-safe: if the sensor is claimed, closes and reopens it now (a hotplug event: a
    /// sensor appeared, or its properties such as the mount matrix changed). Also cuts short the
    /// wait before a retry after a failure.
    public nonisolated func restart() {
        claimContinuation.yield(.restart)
    }

    /// The service loop.
    public func run() async {
        var reader: Task<Void, Never>? = nil
        var claimed = false
        for await command in claims {
            switch command {
            case .claim(let value):
                claimed = value
                if claimed, reader == nil {
                    reader = Task { await self.readWhileClaimed() }
                } else if !claimed, let running = reader {
                    running.cancel()
                    await running.value
                    reader = nil
                }
            case .restart:
                guard claimed else { continue }
                if let running = reader {
                    running.cancel()
                    await running.value
                }
                logger.info("reopening the sensor (hotplug)")
                reader = Task { await self.readWhileClaimed() }
            }
        }
        reader?.cancel()
        await reader?.value
    }

    /// Ends ``run()`` (after closing the sensor).
    public nonisolated func finish() {
        claimContinuation.finish()
    }

    /// Nonisolated on purpose: the stream (and the libiio or file handle behind it) stays in the
    /// one task that opened it, never crossing into the actor (Swift 6 checks this).
    private nonisolated func readWhileClaimed() async {
        var detector = try! OrientationDetector(configuration: configuration)  // validated in init
        var delay = 0.5
        while !Task.isCancelled {
            let stream: any SampleStream
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
                while let sample = try await stream.next() {
                    delay = 0.5
                    if let event = detector.process(sample) { sink(.orientation(event)) }
                }
            } catch {
                failure = error
            }
            // Close before anything else, in particular before backing off: a failed or stalled
            // sensor must not stay open (its buffer enabled) while we wait to retry.
            stream.close()
            sink(.sensorActive(false))
            logger.info("sensor closed", metadata: ["sensor": "\(source.name)"])
            if Task.isCancelled || failure is CancellationError { return }
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
    private nonisolated func backOff(failure: String, delay: inout Double) async {
        logger.warning("sensor failure; retrying", metadata: ["error": "\(failure)", "retry-in": "\(delay)s"])
        sink(.sensorFailed(failure))
        try? await Task.sleep(for: .seconds(delay))
        delay = min(delay * 2, 30)
    }
}
