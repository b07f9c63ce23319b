import Glibc
import LineFraming
import NIOCore
import NIOPosix
import Synchronization

/// One connection to orientationd: every server message in order, and requests with replies.
///
/// Contract: ``connect(socketPath:eventLoopGroup:)`` returns after the server's `hello` (available
/// as ``hello``), or throws ``OrientationClientError/server(_:)`` when the server refuses instead
/// (`too-many-clients`). ``request(_:topics:)`` sends a request with a fresh id and returns the reply with that
/// id; events (messages without an id) go to ``events``. When the connection ends, pending
/// requests fail with ``OrientationClientError/connectionClosed`` and ``events`` finishes.
public final class OrientationConnection: Sendable {
    /// The server's greeting.
    public let hello: ServerMessage
    /// Messages that are not replies: `orientation`, `lock` broadcasts, `goodbye`, unknown types.
    public let events: AsyncStream<ServerMessage>
    private let outbound: AsyncStream<String>.Continuation
    private let pending: Mutex<(nextID: Int, waiting: [Int: CheckedContinuation<ServerMessage, Error>], closed: Bool)>
    private let task: Mutex<Task<Void, Never>?>

    private init(hello: ServerMessage, events: AsyncStream<ServerMessage>, outbound: AsyncStream<String>.Continuation) {
        self.hello = hello
        self.events = events
        self.outbound = outbound
        pending = Mutex((1, [:], false))
        task = Mutex(nil)
    }

    /// Connects and waits for `hello`.
    public static func connect(socketPath: String,
                               eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> OrientationConnection {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: eventLoopGroup)
                .connect(unixDomainSocketPath: socketPath) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder(maximumLength: 1 << 20)))
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw OrientationClientError.cannotConnect(path: socketPath, reason: Self.describe(error, path: socketPath))
        }
        let (lines, outbound) = AsyncStream.makeStream(of: String.self)
        let (events, eventSink) = AsyncStream.makeStream(of: ServerMessage.self)
        let (helloStream, helloSink) = AsyncStream.makeStream(of: ServerMessage?.self)
        let connection = Box()
        let task = Task {
            try? await channel.executeThenClose { inbound, writer in
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await line in lines {
                            var buffer = ByteBuffer()
                            buffer.writeString(line)
                            buffer.writeInteger(UInt8(ascii: "\n"))
                            do { try await writer.write(buffer) } catch { break }
                        }
                    }
                    var greeted = false
                    do {
                        for try await frame in inbound {
                            guard let message = try? ServerMessage.parse(frame.readableBytesView) else { continue }
                            if !greeted {
                                greeted = true
                                helloSink.yield(message)
                                helloSink.finish()
                                continue
                            }
                            if let n = message.replyID?.numberValue, n == n.rounded(), abs(n) < 1e15, let owner = connection.value {
                                owner.resolve(Int(n), with: message)
                            } else {
                                eventSink.yield(message)
                            }
                        }
                    } catch {}
                    if !greeted {
                        helloSink.yield(nil)
                        helloSink.finish()
                    }
                    group.cancelAll()
                    outbound.finish()
                }
            }
            eventSink.finish()
            connection.value?.failAll()
        }
        var helloMessage: ServerMessage? = nil
        for await message in helloStream {
            helloMessage = message
            break
        }
        if case .error(let refusal, _) = helloMessage {
            // A full server (or one out of descriptors) says why instead of greeting.
            task.cancel()
            throw OrientationClientError.server(refusal)
        }
        guard let helloMessage, case .hello(let version, _, _) = helloMessage else {
            task.cancel()
            throw OrientationClientError.cannotConnect(path: socketPath, reason: "no hello from the server")
        }
        guard version == OrientationProtocol.version else {
            task.cancel()
            throw OrientationClientError.unsupportedProtocol(version)
        }
        let result = OrientationConnection(hello: helloMessage, events: events, outbound: outbound)
        result.task.withLock { $0 = task }
        connection.set(result)
        return result
    }

    /// Sends `op` and waits for its reply; an `error` reply is thrown as
    /// ``OrientationClientError/server(_:)``.
    public func request(_ op: ClientRequest.Op, topics: [SubscriptionTopic]? = nil) async throws -> ServerMessage {
        let reply: ServerMessage = try await withCheckedThrowingContinuation { continuation in
            let id: Int? = pending.withLock { state in
                guard !state.closed else { return nil }
                let id = state.nextID
                state.nextID += 1
                state.waiting[id] = continuation
                return id
            }
            guard let id else {
                continuation.resume(throwing: OrientationClientError.connectionClosed)
                return
            }
            outbound.yield(ClientRequest(op, id: .number(Double(id)), topics: topics).line)
        }
        if case .error(let error, _) = reply { throw OrientationClientError.server(error) }
        return reply
    }

    /// Closes the connection; waits until it is closed.
    public func close() async {
        let running = task.withLock { $0 }
        outbound.finish()
        running?.cancel()
        await running?.value
    }

    fileprivate func resolve(_ id: Int, with message: ServerMessage) {
        let continuation = pending.withLock { $0.waiting.removeValue(forKey: id) }
        continuation?.resume(returning: message)
    }

    fileprivate func failAll() {
        let waiting = pending.withLock { state in
            state.closed = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume(throwing: OrientationClientError.connectionClosed) }
    }

    /// What a person needs to read when connecting failed: the cause in words and what to do,
    /// not NIO's `connect(descriptor:addr:size:)` text.
    static func describe(_ error: Error, path: String) -> String {
        guard let io = error as? IOError else { return "\(error)" }
        // Connecting to a regular file (or a FIFO) is refused like a stale socket: say what is
        // there instead (issue 21: "--socket" pointing at a file blamed a stopped daemon).
        if io.errnoCode == ECONNREFUSED || io.errnoCode == ENOTSOCK, let kind = notASocket(path) {
            return "\(kind), not a socket: check --socket (orientationd's socket is \(OrientationProtocol.defaultSocketPath) unless [server] socket says otherwise)"
        }
        switch io.errnoCode {
        case ENOENT:
            return "no socket there, so orientationd is not running (start it: systemctl start orientationd.socket, or orientationd --socket PATH)"
        case ECONNREFUSED:
            return "nothing is listening (orientationd stopped without removing its socket, or is still starting)"
        case EACCES, EPERM:
            return "permission denied (the socket's socket-mode and socket-group in orientationd.conf decide who may connect)"
        case ENOTSOCK:
            return "that path is not a socket"
        case ENAMETOOLONG:
            return "the path is too long for a Unix socket (at most 107 bytes)"
        case EAGAIN:
            return "orientationd is not accepting connections right now (its backlog is full); try again"
        default:
            return "\(String(cString: strerror(io.errnoCode))) (errno \(io.errnoCode))"
        }
    }

    /// What `path` is when it is something other than a socket (`"a regular file"`), else `nil`.
    static func notASocket(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFSOCK: return nil
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a named pipe"
        default: return "a special file"
        }
    }

    /// Late binding of the connection for the reader task (it starts before the object exists).
    private final class Box: Sendable {
        private let storage = Mutex<OrientationConnection?>(nil)
        var value: OrientationConnection? { storage.withLock { $0 } }
        func set(_ connection: OrientationConnection) { storage.withLock { $0 = connection } }
    }
}

extension ServerMessage {
    /// The `id` of a reply, `nil` for events.
    var replyID: JSONValue? {
        switch self {
        case .subscribed(_, let id), .unsubscribed(let id), .state(_, _, _, _, _, _, let id), .pong(let id), .lock(_, let id), .error(_, let id):
            id
        case .hello, .orientation, .sensor, .reading, .posture, .goodbye, .unknown:
            nil
        }
    }
}
