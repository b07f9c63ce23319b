import OrientationServer
import SensorIIO
import SensorPipeline
import ServiceLifecycle
import Synchronization

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

/// Forwards the hub's claim changes to the pipeline, which is created after the server (the
/// server must bind first so a bad socket path fails fast).
final class ClaimRelay: Sendable {
    private let pipeline = Mutex<SensorPipeline?>(nil)
    private let pendingClaim = Mutex<Bool?>(nil)

    func connect(_ pipeline: SensorPipeline) {
        let claim = pendingClaim.withLock { value -> Bool? in
            defer { value = nil }
            return value
        }
        self.pipeline.withLock { $0 = pipeline }
        if let claim { pipeline.setClaimed(claim) }
    }

    func forward(_ claimed: Bool) {
        if let pipeline = pipeline.withLock({ $0 }) {
            pipeline.setClaimed(claimed)
        } else {
            pendingClaim.withLock { $0 = claimed }
        }
    }

    func finishPipeline() {
        pipeline.withLock { $0 }?.finish()
    }
}
