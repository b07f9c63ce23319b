import Glibc
import Logging
import OrientationServer
import Testing
import TestSupport

/// What the server does with whatever already sits at the socket path.
@Suite struct SocketPathTests {
    static func start(_ path: String) async throws -> OrientationSocketServer {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return try await OrientationSocketServer.start(configuration: ServerConfiguration(socketPath: path), logger: logger) { _ in }
    }

    @Test func aStaleSocketFromACrashedDaemonIsReplaced() async throws {
        let path = temporaryDirectory() + "/stale.sock"
        // A socket file nobody listens on: bind, then close without unlinking (as a crash leaves it).
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: Array(path.utf8)) }
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        close(fd)
        #expect(access(path, F_OK) == 0)
        let server = try await Self.start(path)
        let client = try TestSocket(path: path)
        #expect(client.readLine()?.contains("\"hello\"") == true)
        await server.shutdown(reason: "done")
    }

    @Test func aRegularFileIsNeverDeleted() async throws {
        let path = temporaryDirectory() + "/precious"
        writeText(path, "user data\n")
        await #expect {
            try await Self.start(path)
        } throws: { error in
            (error as? ServerError)?.description.hasPrefix("\(path) exists and is a regular file, not a socket; refusing to replace it") == true
        }
        #expect(access(path, F_OK) == 0)
    }

    @Test func aDirectoryIsRefusedToo() async throws {
        let path = temporaryDirectory() + "/dir"
        mkdir(path, 0o755)
        await #expect(throws: ServerError.pathIsNotASocket(path, kind: "a directory")) { try await Self.start(path) }
    }

    @Test func aLiveServerIsNotStolen() async throws {
        let path = temporaryDirectory() + "/live.sock"
        let first = try await Self.start(path)
        await #expect(throws: ServerError.socketInUse(path)) { try await Self.start(path) }
        let client = try TestSocket(path: path)
        #expect(client.readLine()?.contains("\"hello\"") == true, "the first server still serves")
        await first.shutdown(reason: "done")
    }

    @Test func missingParentDirectoriesAreCreated() async throws {
        let path = temporaryDirectory() + "/run/orientationd/orientationd.sock"
        let server = try await Self.start(path)
        #expect(access(path, F_OK) == 0)
        await server.shutdown(reason: "done")
    }
}
