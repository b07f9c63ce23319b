import Logging
import OrientationServer
import Synchronization
import TestSupport

/// An in-process socket server in a temporary directory, recording claim changes.
final class ServerHarness: Sendable {
    let directory: String
    let path: String
    let server: OrientationSocketServer
    private let claimLog: ClaimLog
    private let claimStream: AsyncStream<Bool>

    final class ClaimLog: Sendable {
        let entries = Mutex<[Bool]>([])
    }

    var claims: [Bool] { claimLog.entries.withLock { $0 } }

    static func start(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> ServerHarness {
        let directory = temporaryDirectory()
        var configuration = ServerConfiguration(socketPath: directory + "/orientationd.sock")
        configure(&configuration)
        let log = ClaimLog()
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let server = try await OrientationSocketServer.start(configuration: configuration, logger: logger) { claimed in
            log.entries.withLock { $0.append(claimed) }
            continuation.yield(claimed)
        }
        return ServerHarness(directory: directory, path: configuration.socketPath, server: server, claimLog: log, claimStream: stream)
    }

    private init(directory: String, path: String, server: OrientationSocketServer, claimLog: ClaimLog, claimStream: AsyncStream<Bool>) {
        self.directory = directory
        self.path = path
        self.server = server
        self.claimLog = claimLog
        self.claimStream = claimStream
    }

    /// Waits for the next claim change (the hub reports it on its loop).
    func nextClaim() async -> Bool? {
        for await claim in claimStream { return claim }
        return nil
    }

    func stop() async {
        await server.shutdown(reason: "test over")
    }
}
