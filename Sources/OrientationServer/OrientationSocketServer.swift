import LineFraming
import Logging
import NIOCore
import NIOPosix
import OwnerThreads
import OrientationCore
import OrientationProtocol
import Synchronization
import Glibc

/// The Unix-socket server: binds (or adopts a socket from systemd), runs every connection on one
/// event loop with the ``SubscriptionHub``, and shuts down gracefully.
///
/// That loop is one of SwiftNIO's singleton loops (`MultiThreadedEventLoopGroup.singleton`), the
/// ones the daemon's tasks run on, not a thread of its own: the hub's work is a few events a
/// minute and nothing on it blocks (the group database is asked off the loop), and a thread that
/// only waits cost the daemon its stack, a malloc arena and a kernel stack (issue 37). The
/// server never shuts that group down.
///
/// Contract: ``start(configuration:logger:listeningSocket:onClaimChange:onStateChange:onTopicClaimChange:sensorStatus:)`` returns
/// once the socket accepts connections (``prepare(configuration:logger:listeningSocket:sensorStatus:)`` then ``listen(_:onClaimChange:onStateChange:onTopicClaimChange:)``
/// in two steps, for a daemon that wires its sensors to the hub in between) (or throws ``ServerError`` with a clear reason). ``shutdown(reason:)``
/// sends every client `goodbye`, closes all connections and the listener, and removes the socket
/// file it created (never one systemd passed in, never a file that is no longer ours).
public final class OrientationSocketServer: Sendable {
    public let hub: SubscriptionHub.Handle
    /// The configuration in force (a reload replaces the limits; see ``reconfigure(_:)``).
    public var configuration: ServerConfiguration { current.withLock { $0 } }
    private let current: Mutex<ServerConfiguration>
    private let channel: Channel
    private let socketIdentity: Mutex<(dev: UInt, ino: UInt)?>
    private let logger: Logger

    private init(hub: SubscriptionHub.Handle, configuration: ServerConfiguration,
                 channel: Channel, socketIdentity: (dev: UInt, ino: UInt)?, logger: Logger) {
        self.hub = hub
        current = Mutex(configuration)
        self.channel = channel
        self.socketIdentity = Mutex(socketIdentity)
        self.logger = logger
    }

    /// A server whose hub exists, not yet bound nor accepting: what the daemon publishes to while
    /// it builds its sensors, before any client can claim one (issue 36); then
    /// ``OrientationSocketServer/listen(_:onClaimChange:onStateChange:onTopicClaimChange:)`` it.
    /// A start that fails before then has nothing to give back: no socket is bound yet (systemd's
    /// is left as it is), and the hub's loop is a singleton loop the server never shuts down.
    public struct Prepared: Sendable {
        /// The hub: publish to it from now on.
        public let hub: SubscriptionHub.Handle
        let boundHub: NIOLoopBound<SubscriptionHub>
        let configuration: ServerConfiguration
        let listeningSocket: Int32?
        let logger: Logger
    }

    /// Binds and starts accepting: ``prepare(configuration:logger:listeningSocket:sensorStatus:)``
    /// then ``listen(_:onClaimChange:onStateChange:onTopicClaimChange:)``.
    ///
    /// - Parameters:
    ///   - listeningSocket: a listening socket passed by systemd (socket activation); the path is
    ///     then neither prepared nor removed.
    ///   - onClaimChange: called when the first client subscribes (`true`) and the last leaves.
    ///   - onStateChange: called (on the hub's loop) after every change of the published state.
    ///   - onTopicClaimChange: called (on the hub's loop) when the first client subscribes to a
    ///     topic other than the orientation (light, proximity, compass, posture: `true`) and when
    ///     the last one leaves it.
    public static func start(configuration: ServerConfiguration, logger: Logger, listeningSocket: Int32? = nil,
                             onClaimChange: @escaping @Sendable (Bool) -> Void,
                             onStateChange: @escaping @Sendable (OrientationState) -> Void = { _ in },
                             onTopicClaimChange: @escaping @Sendable (SubscriptionTopic, Bool) -> Void = { _, _ in },
                             sensorStatus: SensorStatus? = nil) async throws -> OrientationSocketServer {
        let prepared = try await prepare(configuration: configuration, logger: logger, listeningSocket: listeningSocket,
                                         sensorStatus: sensorStatus)
        return try await listen(prepared, onClaimChange: onClaimChange, onStateChange: onStateChange,
                                onTopicClaimChange: onTopicClaimChange)
    }

    /// Makes the hub, without binding the socket or accepting anyone yet.
    /// - Throws: ``ServerError`` with a clear reason (an unknown privileged group).
    public static func prepare(configuration: ServerConfiguration, logger: Logger, listeningSocket: Int32? = nil,
                               sensorStatus: SensorStatus? = nil) async throws -> Prepared {
        let privileges = try await Self.privileges(configuration)
        // One of the singleton loops the daemon's tasks run on (see the type's doc).
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let (boundHub, handle) = try await loop.submit {
            let hub = SubscriptionHub(eventLoop: loop, configuration: configuration, privileges: privileges, logger: logger,
                                      onClaimChange: { _ in })
            // The sensor's state from the first hello on.
            if let sensorStatus { hub.setSensorStatus(sensorStatus) }
            return (NIOLoopBound(hub, eventLoop: loop), SubscriptionHub.Handle(hub))
        }.get()
        return Prepared(hub: handle, boundHub: boundHub, configuration: configuration,
                        listeningSocket: listeningSocket, logger: logger)
    }

    /// Routes claims as given, binds the socket (or adopts systemd's) and starts accepting:
    /// every connection, the ones waiting in an activated socket's backlog first, reaches a hub
    /// whose claims go somewhere.
    /// - Throws: ``ServerError`` with a clear reason (a bad socket path, ``ServerError/cannotListen(_:reason:)``);
    ///   `prepared` is given up then.
    public static func listen(_ prepared: Prepared, onClaimChange: @escaping @Sendable (Bool) -> Void,
                              onStateChange: @escaping @Sendable (OrientationState) -> Void = { _ in },
                              onTopicClaimChange: @escaping @Sendable (SubscriptionTopic, Bool) -> Void = { _, _ in }) async throws
        -> OrientationSocketServer {
        let (boundHub, configuration, logger, listeningSocket) = (prepared.boundHub, prepared.configuration, prepared.logger, prepared.listeningSocket)
        try await boundHub.eventLoop.submit {
            boundHub.value.route(onClaimChange: onClaimChange, onStateChange: onStateChange, onTopicClaimChange: onTopicClaimChange)
        }.get()
        // Our own socket is bound here, with its mode and group from the start (SocketPath);
        // systemd's is adopted as it is. NIO then serves either descriptor.
        let descriptor: Int32
        if let listeningSocket {
            descriptor = listeningSocket
        } else {
            try SocketPath.prepare(configuration.socketPath)
            if SocketPath.directoryIsOpenToOthers(configuration.socketPath) {
                logger.warning("the socket's directory is writable by other users and not sticky: they could replace the socket",
                               metadata: ["socket": "\(configuration.socketPath)"])
            }
            descriptor = try SocketPath.bindListening(configuration.socketPath, mode: configuration.socketMode,
                                                      group: configuration.socketGroup, backlog: 512)
        }
        // One loop for the listener, every connection and the hub (the bootstrap is given the
        // loop itself, not the group, so that no connection lands on another).
        let bootstrap = ServerBootstrap(group: boundHub.eventLoop)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(DescriptorExhaustionHandler(listeningDescriptor: descriptor, logger: logger))
                }
            }
            .childChannelOption(.writeBufferWaterMark, value: .init(low: configuration.writeBufferLowWaterMark,
                                                                     high: configuration.writeBufferHighWaterMark))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // Lines are framed by the decoder the client uses too; its limit is the
                    // hub's, read per line, so a reload applies to open connections.
                    let hub = boundHub.value
                    try channel.pipeline.syncOperations.addHandlers(
                        ByteToMessageHandler(LineFrameDecoder { hub.configuration.maximumLineLength }),
                        ClientConnectionHandler(hub: hub))
                }
            }
        let channel: Channel
        do {
            channel = try await bootstrap.withBoundSocket(descriptor).get()
        } catch {
            if listeningSocket == nil {
                close(descriptor)
                unlink(configuration.socketPath)
            }
            // IOError's description carries the failing call and errno text; others say what they are.
            throw ServerError.cannotListen(configuration.socketPath, reason: "\(error)")
        }
        let identity = listeningSocket == nil ? SocketPath.identity(configuration.socketPath) : nil
        logger.info("listening", metadata: ["socket": "\(configuration.socketPath)",
                                            "activation": "\(listeningSocket == nil ? "bound" : "systemd")"])
        return OrientationSocketServer(hub: prepared.hub, configuration: configuration, channel: channel,
                                       socketIdentity: identity, logger: logger)
    }

    /// Applies a reloaded configuration without dropping a client: limits (connections, per
    /// user, reserve, idle timeout, output bound, line length, request rate for new
    /// connections) and the privileged users and group. The socket's path, mode and group and
    /// the write-buffer marks belong to the bound socket: changing them needs a restart, and
    /// they are returned by name (and kept as they were).
    /// - Throws: ``ServerError`` when the privileged group does not exist; nothing changes then.
    public func reconfigure(_ new: ServerConfiguration) async throws -> [String] {
        let privileges = try await Self.privileges(new)
        let old = configuration
        var applied = new
        var needRestart: [String] = []
        if new.socketPath != old.socketPath { needRestart.append("socket"); applied.socketPath = old.socketPath }
        if new.socketMode != old.socketMode { needRestart.append("socket-mode"); applied.socketMode = old.socketMode }
        if new.socketGroup != old.socketGroup { needRestart.append("socket-group"); applied.socketGroup = old.socketGroup }
        if new.writeBufferHighWaterMark != old.writeBufferHighWaterMark || new.writeBufferLowWaterMark != old.writeBufferLowWaterMark {
            needRestart.append("write buffer marks")
            applied.writeBufferHighWaterMark = old.writeBufferHighWaterMark
            applied.writeBufferLowWaterMark = old.writeBufferLowWaterMark
        }
        current.withLock { $0 = applied }
        await hub.reconfigure(applied, privileges: privileges)
        return needRestart
    }

    /// Says goodbye to every client, closes everything, removes our socket file. Idempotent.
    public func shutdown(reason: String) async {
        let hub = self.hub.hub
        try? await hub.eventLoop.flatSubmit { hub.value.shutdown(reason: reason) }.get()
        try? await channel.close()
        let identity = socketIdentity.withLock { value in
            defer { value = nil }
            return value
        }
        SocketPath.removeIfOurs(configuration.socketPath, identity: identity)
        logger.info("socket server stopped", metadata: ["reason": "\(reason)"])
    }

    /// The privilege policy, its group name resolved in the group database on an owner thread
    /// (NSS may block; never on a loop).
    private static func privileges(_ configuration: ServerConfiguration) async throws(ServerError) -> PrivilegePolicy {
        let (uids, group) = (configuration.privilegedUIDs, configuration.privilegedGroup)
        return try await OwnerThread.run(name: "od-nss-group") { () throws(ServerError) in try PrivilegePolicy(uids: uids, group: group) }
    }
}
