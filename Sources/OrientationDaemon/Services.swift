import OrientationServer
import SensorIIO
import SensorPipeline
import SensorProxyBus
import Logging
import ServiceLifecycle

/// The socket server as a service: it is already listening when the group starts; on graceful
/// shutdown it says goodbye to every client and removes the socket file. Returning from `run()`
/// means the server is closed.
struct SocketServerService: Service {
    let server: OrientationSocketServer

    func run() async throws {
        try? await gracefulShutdown()
        await server.shutdown(reason: "orientationd is shutting down")
    }
}

/// The sensor pipeline as a service: runs until graceful shutdown, or until a finished replay
/// asks the daemon to exit (`--exit-when-done`), which shuts the whole group down.
struct PipelineService: Service {
    let pipeline: SensorPipeline
    let monitor: UdevMonitor?
    /// The light, proximity and compass sensors, closed with the pipeline.
    var auxiliary: AuxiliarySensors? = nil
    /// A convertible's posture, closed with the pipeline.
    var posture: PostureService? = nil
    /// orientationd's tablet-mode switch, destroyed with it.
    var tabletModeSwitch: TabletModeSwitchKeeper? = nil
    /// Tests only: never finish, ignoring cancellation, as a sensor whose close hangs would
    /// (debug builds only: a release build ignores it).
    var stallsShutdown = false

    func run() async throws {
        await withGracefulShutdownHandler {
            await pipeline.run()
        } onGracefulShutdown: {
            pipeline.finish()
        }
        // Compiled into debug builds only (issue 36: no test hook in what is installed).
        #if DEBUG
        if stallsShutdown { await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in } }
        #endif
        await tabletModeSwitch?.stop()
        await posture?.stop()
        await monitor?.stop()
        await auxiliary?.stop()
    }
}

/// Turns SIGTERM or SIGINT into a graceful shutdown of the group, from a signal stream the
/// daemon registers first thing (``ProcessSignals``): ServiceGroup's own signal handling starts
/// only when the group runs, so a SIGTERM during startup (systemd stopping a service that is
/// still starting; the lifecycle test under load) killed the daemon without `goodbye` and left
/// the socket file. Registered early, the stream keeps the signals until the group runs.
/// Returning ends the group gracefully (its termination behaviour).
struct ShutdownSignalService: Service {
    let signals: AsyncStream<Int32>
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var iterator = signals.makeAsyncIterator()
            if let signal = await iterator.next() {
                logger.notice("shutting down", metadata: ["signal": "\(ProcessSignals.name(signal))"])
            }
        }
    }
}

/// Logs and otherwise ignores signals that must not kill the daemon (SIGUSR1, SIGUSR2: by
/// default each terminates the process, without goodbye, leaving the socket file behind; SIGHUP
/// reloads, ``ReloadService``).
/// The stream, registered first thing, replaces their default action; this service says so in
/// the log each time one arrives. Ends with the group.
struct IgnoredSignalService: Service {
    let signals: AsyncStream<Int32>
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            for await signal in signals {
                logger.notice("ignoring a signal", metadata: ["signal": "\(ProcessSignals.name(signal))",
                                                              "reason": "orientationd gives this signal no meaning (SIGHUP reloads)"])
            }
        }
    }
}

/// The net.hadess.SensorProxy facade as a service: already serving when the group starts; on
/// graceful shutdown it releases the name and closes the bus connection.
struct SensorProxyService: Service {
    let bus: SensorProxyBus

    func run() async throws {
        try? await gracefulShutdown()
        await bus.stop()
    }
}
