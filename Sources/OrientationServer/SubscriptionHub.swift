import AmbientSensorCore
import Logging
import NIOCore
import OrientationCore
import OrientationProtocol
import PostureCore
import SensorLifecycle
import Synchronization

/// The daemon's published state and its fan-out to clients.
///
/// Confined to one event loop: every connection handler lives on the same loop, so the hub needs
/// no locks. Other threads reach it only through ``SubscriptionHub/Handle``, which hops onto the
/// loop. It counts subscribers and reports the first arrival and the last departure through
/// `onClaimChange`, so the sensor is open only while someone listens.
public final class SubscriptionHub {
    public let eventLoop: EventLoop
    private(set) var state = OrientationState()
    private var lastChange: NIODeadline? = nil
    private var connections: [ObjectIdentifier: ClientConnectionHandler] = [:]
    /// Connections per user id (`nil`: a peer whose credentials could not be read), and of
    /// unprivileged peers in all: the limits that keep one user from taking every slot.
    private var connectionsPerUser: [UInt32?: Int] = [:]
    private var unprivilegedConnections = 0
    private var refusalLog = LogThrottle()
    private var subscriberCount = 0
    private(set) var sensorActive = false
    private var shuttingDown = false
    /// Replaced by a reload (``Handle/reconfigure(_:privileges:)``); connections read it live.
    private(set) var configuration: ServerConfiguration
    private(set) var privileges: PrivilegePolicy {
        didSet { peerGroups.removeAll() }
    }
    /// Groups of peers the kernel did not list, from the group database, asked off the loop.
    let peerGroups: PeerGroupCache
    let logger: Logger
    /// Called on the loop when the subscriber count goes 0 → 1 (`true`) or 1 → 0 (`false`).
    private var onClaimChange: @Sendable (Bool) -> Void
    /// Called on the loop after every change of the published state (orientation or lock).
    private var onStateChange: @Sendable (OrientationState) -> Void
    /// The light, proximity and compass sensors as last published.
    private(set) var sensors = Dictionary(uniqueKeysWithValues: AuxiliarySensorKind.allCases.map { ($0, AuxiliarySensorState(kind: $0)) })
    /// A convertible's posture as last published.
    private(set) var posture = PostureState()
    /// The posture service's state of now (its hinge angle follows every reading; issue 40), for
    /// `get`; `nil`: only what was published. Called on the hub's event loop; it takes the
    /// service's lock briefly (the service never waits on this loop under it).
    var postureProvider: (@Sendable () -> PostureState)? = nil

    /// The posture a `get` reply carries: the service's state of now where there is one, else
    /// the last published.
    var currentPosture: PostureState { postureProvider?() ?? posture }
    /// Subscribers per topic other than the orientation, and who is told when one goes 0 → 1 or
    /// 1 → 0.
    private var topicSubscribers: [SubscriptionTopic: Int] = [:]
    private var onTopicClaimChange: @Sendable (SubscriptionTopic, Bool) -> Void

    init(eventLoop: EventLoop, configuration: ServerConfiguration, privileges: PrivilegePolicy, logger: Logger,
         onClaimChange: @escaping @Sendable (Bool) -> Void, onStateChange: @escaping @Sendable (OrientationState) -> Void = { _ in },
         onTopicClaimChange: @escaping @Sendable (SubscriptionTopic, Bool) -> Void = { _, _ in }) {
        self.eventLoop = eventLoop
        self.configuration = configuration
        self.privileges = privileges
        self.logger = logger
        self.onClaimChange = onClaimChange
        self.onStateChange = onStateChange
        self.onTopicClaimChange = onTopicClaimChange
        peerGroups = PeerGroupCache(eventLoop: eventLoop)
    }

    /// Routes the claims and state changes from now on (the server's listen, before the first
    /// connection is accepted: ``OrientationSocketServer/listen(_:onClaimChange:onStateChange:onTopicClaimChange:)``).
    func route(onClaimChange: @escaping @Sendable (Bool) -> Void, onStateChange: @escaping @Sendable (OrientationState) -> Void,
               onTopicClaimChange: @escaping @Sendable (SubscriptionTopic, Bool) -> Void) {
        eventLoop.preconditionInEventLoop()
        self.onClaimChange = onClaimChange
        self.onStateChange = onStateChange
        self.onTopicClaimChange = onTopicClaimChange
    }

    var connectionCount: Int { connections.count }
    var subscribers: Int { subscriberCount }

    /// Seconds since the orientation last changed, `nil` before any change. A lock does not
    /// reset it: `get` shows it beside the orientation (issue 21: "changed: 0.0 s ago" after a
    /// lock read as if the device had just turned).
    var age: Double? {
        lastChange.map { Double((NIODeadline.now() - $0).nanoseconds) / 1e9 }
    }

    // MARK: Connections

    /// Completes `peer` with its supplementary groups (at once when the kernel gave them, else
    /// from ``PeerGroupCache``, looked up off the loop) and calls `completion` on the loop.
    func resolveGroups(of peer: PeerCredentials, _ completion: @escaping (PeerCredentials) -> Void) {
        eventLoop.preconditionInEventLoop()
        guard peer.groups == nil, peer.uid != 0 else { return completion(peer) }
        peerGroups.groups(uid: peer.uid, gid: peer.gid) { groups in
            var resolved = peer
            resolved.groups = groups
            completion(resolved)
        }
    }

    /// Admits a connection from `peer`, or says why not (`too-many-clients`, closing).
    ///
    /// Limits, in order: shutting down; `maximumClients` in all; unprivileged peers together
    /// leave `reservedClients` free; each user id other than root has `maximumClientsPerUser`.
    func register(_ connection: ClientConnectionHandler, peer: PeerCredentials?) -> ProtocolError? {
        eventLoop.preconditionInEventLoop()
        let limit = configuration.maximumClients
        let privileged = peer.map(privileges.allows) ?? false
        let user = peer?.uid
        let refusal: String? =
            if shuttingDown { "the server is shutting down" }
            else if connections.count >= limit { "the server is at its limit of \(limit) clients" }
            else if !privileged && unprivilegedConnections >= limit - configuration.effectiveReserve {
                "the server keeps its last \(configuration.effectiveReserve) of \(limit) connections for root and the privileged group"
            } else if user != 0 && connectionsPerUser[user, default: 0] >= configuration.maximumClientsPerUser {
                "\(user.map { "uid \($0)" } ?? "an unidentified peer") already has \(configuration.maximumClientsPerUser) connections, the limit per user"
            } else { nil }
        if let refusal {
            let (log, suppressed) = refusalLog.admit(now: Double(NIODeadline.now().uptimeNanoseconds) / 1e9)
            if log && !shuttingDown {
                logger.warning("refusing connections", metadata: ["reason": "\(refusal)", "peer": "\(peer.map { "\($0)" } ?? "unknown")",
                                                                 "refusals-not-logged": "\(suppressed)"])
            }
            return ProtocolError(.tooManyClients, refusal)
        }
        connections[ObjectIdentifier(connection)] = connection
        connectionsPerUser[user, default: 0] += 1
        if !privileged { unprivilegedConnections += 1 }
        connection.admission = (user, privileged)
        return nil
    }

    func unregister(_ connection: ClientConnectionHandler) {
        eventLoop.preconditionInEventLoop()
        guard connections.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
        if let (user, privileged) = connection.admission {
            connectionsPerUser[user, default: 1] -= 1
            if connectionsPerUser[user] == 0 { connectionsPerUser[user] = nil }
            if !privileged { unprivilegedConnections -= 1 }
        }
        if connection.isSubscribed { setTopics(connection, []) }
    }

    /// Subscribes `connection` to the orientation alone (`true`) or to nothing.
    func setSubscribed(_ connection: ClientConnectionHandler, _ subscribed: Bool) {
        setTopics(connection, subscribed ? [.orientation] : [])
    }

    /// Replaces `connection`'s topics. The orientation topic counts toward the accelerometer's
    /// claim (``subscribers``); each other topic claims its own sensors.
    func setTopics(_ connection: ClientConnectionHandler, _ topics: Set<SubscriptionTopic>) {
        eventLoop.preconditionInEventLoop()
        let before = connection.topics
        guard before != topics else { return }
        connection.topics = topics
        connection.isSubscribed = !topics.isEmpty
        let orientation = topics.contains(.orientation)
        if orientation != before.contains(.orientation) {
            subscriberCount += orientation ? 1 : -1
            if orientation && subscriberCount == 1 { onClaimChange(true) }
            if !orientation && subscriberCount == 0 { onClaimChange(false) }
        }
        for topic in SubscriptionTopic.allCases where topic != .orientation {
            let now = topics.contains(topic)
            guard now != before.contains(topic) else { continue }
            topicSubscribers[topic, default: 0] += now ? 1 : -1
            if now && topicSubscribers[topic] == 1 { onTopicClaimChange(topic, true) }
            if !now && topicSubscribers[topic] == 0 { onTopicClaimChange(topic, false) }
        }
    }

    /// Publishes a convertible's posture (deduplicated) to the `posture` topic's subscribers.
    func publish(posture: PostureState) {
        eventLoop.preconditionInEventLoop()
        guard self.posture != posture else { return }
        self.posture = posture
        let line = ServerMessage.posture(posture).line
        for connection in connections.values where connection.topics.contains(.posture) {
            connection.deliverEvent(line, topic: .posture)
        }
    }

    /// Publishes a light, proximity or compass state (deduplicated) to that topic's subscribers.
    func publish(sensor: AuxiliarySensorState) {
        eventLoop.preconditionInEventLoop()
        guard sensors[sensor.kind] != sensor else { return }
        sensors[sensor.kind] = sensor
        let line = ServerMessage.reading(sensor).line
        for connection in connections.values where connection.topics.contains(SubscriptionTopic(sensor.kind)) {
            connection.deliverEvent(line, topic: SubscriptionTopic(sensor.kind))
        }
    }

    // MARK: Publishing

    /// Publishes a device orientation (deduplicated: an unchanged orientation sends nothing).
    func publish(orientation: DeviceOrientation, time: Double?) {
        eventLoop.preconditionInEventLoop()
        guard orientation != state.orientation else { return }
        state.previous = state.orientation
        state.orientation = orientation
        state.time = time
        change()
        lastChange = .now()
        broadcast(.orientation(state: state))
    }

    /// Sets the system rotation lock; returns false when it already had that value.
    @discardableResult
    func setLocked(_ locked: Bool) -> Bool {
        eventLoop.preconditionInEventLoop()
        guard state.locked != locked else { return false }
        state.locked = locked
        change()
        broadcast(.lock(state: state, id: nil))
        return true
    }

    func setSensorActive(_ active: Bool) {
        eventLoop.preconditionInEventLoop()
        sensorActive = active
    }

    /// Publishes the sensor's state and why (deduplicated) to subscribers as a `sensor`
    /// message; later replies carry it too. `seq` does not change: it counts what clients act on.
    func setSensorStatus(_ status: SensorStatus) {
        eventLoop.preconditionInEventLoop()
        guard state.sensor != status else { return }
        state.sensor = status
        broadcast(.sensor(state: state))
    }

    private func change() {
        state.seq += 1
        onStateChange(state)
    }

    private func broadcast(_ message: ServerMessage) {
        let line = message.line
        for connection in connections.values where connection.topics.contains(.orientation) {
            connection.deliverEvent(line, topic: .orientation)
        }
    }

    /// Tells every client goodbye and closes every connection; new ones are refused.
    func shutdown(reason: String) -> EventLoopFuture<Void> {
        eventLoop.preconditionInEventLoop()
        shuttingDown = true
        let closing = connections.values.map { $0.closeWithGoodbye(reason: reason) }
        return EventLoopFuture.andAllComplete(closing, on: eventLoop)
    }
}

extension SubscriptionHub {
    /// A thread-safe handle to a hub: every call hops onto the hub's loop.
    public struct Handle: Sendable {
        let hub: NIOLoopBound<SubscriptionHub>
        public var eventLoop: EventLoop { hub.eventLoop }

        init(_ hub: SubscriptionHub) {
            self.hub = NIOLoopBound(hub, eventLoop: hub.eventLoop)
        }

        /// Publishes an orientation change (`previous` comes from the hub's own state).
        public func publish(orientation: DeviceOrientation, time: Double?) {
            hub.eventLoop.execute { hub.value.publish(orientation: orientation, time: time) }
        }

        /// Publishes a light, proximity or compass state (``SubscriptionHub/publish(sensor:)``).
        public func publish(sensor: AuxiliarySensorState) {
            hub.eventLoop.execute { hub.value.publish(sensor: sensor) }
        }

        /// Publishes a convertible's posture.
        public func publish(posture: PostureState) {
            hub.eventLoop.execute { hub.value.publish(posture: posture) }
        }

        /// Lets `get` read the posture service's state of now (``SubscriptionHub/currentPosture``).
        public func setPostureProvider(_ provider: @escaping @Sendable () -> PostureState) {
            hub.eventLoop.execute { hub.value.postureProvider = provider }
        }

        /// Sets the system rotation lock.
        public func setLocked(_ locked: Bool) {
            hub.eventLoop.execute { hub.value.setLocked(locked) }
        }

        /// Records whether the sensor is open (reported in `get` replies).
        public func setSensorActive(_ active: Bool) {
            hub.eventLoop.execute { hub.value.setSensorActive(active) }
        }

        /// Publishes the sensor's state and why (``SubscriptionHub/setSensorStatus(_:)``).
        public func setSensorStatus(_ status: SensorStatus) {
            hub.eventLoop.execute { hub.value.setSensorStatus(status) }
        }

        /// The current state.
        /// - Throws: `EventLoopError.shutdown` once the hub's loop has shut down.
        public func state() async throws -> OrientationState {
            try await hub.eventLoop.submit { hub.value.state }.get()
        }

        /// Applies reloaded limits and privileges: new connections and every later check of
        /// the existing ones use them (an existing connection keeps its request-rate bucket).
        func reconfigure(_ configuration: ServerConfiguration, privileges: PrivilegePolicy) async {
            try? await hub.eventLoop.submit {
                hub.value.configuration = configuration
                hub.value.privileges = privileges
            }.get()
        }

        /// Whether the hub's loop runs a no-op within `seconds` (the watchdog's check that the
        /// loop is not stuck). Never waits on the loop itself: a stuck loop gives false. It
        /// checks every 2 ms, waiting with `sleeper`.
        public func isResponsive(within seconds: Double, sleeper: Sleeper = .task) async -> Bool {
            let probe = LoopProbe()
            hub.eventLoop.execute { probe.answered.store(true, ordering: .releasing) }
            let deadline = ContinuousClock.now.advanced(by: .clampedSeconds(seconds))
            while !probe.answered.load(ordering: .acquiring) {
                if ContinuousClock.now >= deadline { return false }
                try? await sleeper.sleep(seconds: 0.002)
            }
            return true
        }

        /// Number of connections and of subscribers.
        /// - Throws: `EventLoopError.shutdown` once the hub's loop has shut down.
        public func counts() async throws -> (connections: Int, subscribers: Int) {
            try await hub.eventLoop.submit { (hub.value.connectionCount, hub.value.subscribers) }.get()
        }
    }

    public var handle: Handle { Handle(self) }
}

/// Set by the loop when it runs the watchdog's no-op.
private final class LoopProbe: Sendable {
    let answered = Atomic<Bool>(false)
}
