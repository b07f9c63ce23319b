import NIOCore
import OrientationCore
import NIOPosix
import AmbientSensorCore
import PostureCore

/// The Swift client of orientationd.
///
/// ```swift
/// let client = OrientationClient()
/// var policy = try RotationPolicy(app: .allButUpsideDown)
/// for await update in client.updates() {
///     guard let state = update.state else { continue }
///     if let rotated = policy.update(device: state.orientation, locked: state.locked) {
///         print("rotate to", rotated, policy.rotationDegrees)
///     }
/// }
/// ```
public struct OrientationClient: Sendable {
    public let socketPath: String
    private let eventLoopGroup: any EventLoopGroup

    public init(socketPath: String = OrientationProtocol.defaultSocketPath,
                eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.socketPath = socketPath
        self.eventLoopGroup = eventLoopGroup
    }

    /// Opens a connection (see ``OrientationConnection``).
    public func connect() async throws -> OrientationConnection {
        try await OrientationConnection.connect(socketPath: socketPath, eventLoopGroup: eventLoopGroup)
    }

    /// The daemon's answer to `get`.
    public struct Snapshot: Hashable, Sendable {
        public var state: OrientationState
        /// Seconds since the orientation last changed (`nil`: never changed); a lock does not
        /// reset it.
        public var age: Double?
        public var sensorActive: Bool
        public var subscribers: Int
        /// The light, proximity and compass sensors (empty from a daemon before topics).
        public var sensors: [AuxiliarySensorState] = []
        /// A convertible's posture as last published (`nil` from a daemon before issue 30).
        /// `get` opens nothing: while nobody subscribes to `posture` it is `unknown`.
        public var posture: PostureState? = nil
    }

    /// The current state without subscribing (so without opening the sensor).
    public func get() async throws -> Snapshot {
        try await withConnection { connection in
            let reply = try await connection.request(.get)
            guard case let .state(state, age, active, subscribers, sensors, posture, _) = reply else {
                throw OrientationClientError.unexpectedReply(reply.line)
            }
            return Snapshot(state: state, age: age, sensorActive: active, subscribers: subscribers, sensors: sensors, posture: posture)
        }
    }

    /// Sets (`true`) or clears the system rotation lock; needs root or the privileged group.
    /// - Throws: ``OrientationClientError/server(_:)`` with `permission-denied` otherwise.
    @discardableResult
    public func setLocked(_ locked: Bool) async throws -> OrientationState {
        try await withConnection { connection in
            let reply = try await connection.request(locked ? .lock : .unlock)
            guard case let .lock(state, _) = reply else { throw OrientationClientError.unexpectedReply(reply.line) }
            return state
        }
    }

    private func withConnection<T: Sendable>(_ body: (OrientationConnection) async throws -> T) async throws -> T {
        let connection = try await connect()
        do {
            let result = try await body(connection)
            await connection.close()
            return result
        } catch {
            await connection.close()
            throw error
        }
    }

    /// Subscribes and yields the current state, then every change, for as long as the consumer
    /// iterates. When the daemon goes away the stream yields `.disconnected`, reconnects with
    /// `reconnect`'s backoff, re-subscribes, and yields `.connected` with the current state, so a
    /// daemon restart is invisible apart from that. The stream finishes when the policy gives up
    /// (with `.never`: when the first connection ends) or the consuming task is cancelled.
    /// With `sensorChanges`, it also yields `.sensor` whenever the daemon's sensor opens,
    /// closes, is absent or fails (``OrientationState/sensor``); every state it yields carries
    /// the sensor's status either way, when the daemon sends one.
    ///
    /// `topics` (default: the orientation only) adds light, proximity and compass readings
    /// (`.reading`); a list without `.orientation` yields no orientation changes, and its
    /// `.connected` state is the orientation as it stood.
    public func updates(reconnect: ReconnectPolicy = .default, sensorChanges: Bool = false,
                        topics: [SubscriptionTopic]? = nil) -> AsyncStream<OrientationUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: OrientationUpdate.self)
        let client = self
        let task = Task {
            var failures = 0
            var generator = SystemRandomNumberGenerator()
            while !Task.isCancelled {
                do {
                    let connection = try await client.connect()
                    let reply = try await connection.request(.subscribe, topics: topics)
                    guard case .subscribed(let state, _) = reply else {
                        throw OrientationClientError.unexpectedReply(reply.line)
                    }
                    failures = 0
                    continuation.yield(.connected(state))
                    var reason = "the connection closed"
                    await withTaskCancellationHandler {
                        for await event in connection.events {
                            switch event {
                            case .orientation(let s): continuation.yield(.orientation(s))
                            case .lock(let s, _): continuation.yield(.lock(s))
                            case .sensor(let s): if sensorChanges { continuation.yield(.sensor(s)) }
                            case .reading(let r): continuation.yield(.reading(r))
                            case .posture(let p): continuation.yield(.posture(p))
                            case .goodbye(let why): reason = why
                            case .error(let error, _): reason = "\(error)"
                            default: break
                            }
                        }
                    } onCancel: {
                        Task { await connection.close() }
                    }
                    await connection.close()
                    if Task.isCancelled { break }
                    continuation.yield(.disconnected(reason: reason))
                } catch {
                    if Task.isCancelled { break }
                    failures += 1
                    if failures == 1 { continuation.yield(.disconnected(reason: "\(error)")) }
                }
                if let limit = reconnect.maximumAttempts, failures >= limit || limit == 0 { break }
                let delay = reconnect.delay(attempt: max(failures, 1), random: Double.random(in: 0..<1, using: &generator))
                try? await Task.sleep(for: .clampedSeconds(delay))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
