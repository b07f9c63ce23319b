import OrientationServer
import SensorIIO
import SensorPipeline
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

    func run() async throws {
        await withGracefulShutdownHandler {
            await pipeline.run()
        } onGracefulShutdown: {
            pipeline.finish()
        }
        monitor?.stop()
    }
}
