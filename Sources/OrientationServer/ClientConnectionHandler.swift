import AmbientSensorCore
import LineFraming
import Logging
import NIOCore
import OrientationCore
import OrientationProtocol

/// One client connection: enforces limits, answers requests, delivers events. Lines come framed
/// by the ``LineFrameDecoder`` in front of it (``OrientationSocketServer`` installs both).
///
/// Contract: a bad request gets an `error` reply and the connection stays open; only the limits
/// close it, after saying why (docs/PROTOCOL.md lists them): line length, request rate (every
/// line counts, blank ones too), client counts (in all, per user, the privileged reserve), the
/// idle timeout, and the output bound (a client whose unread replies exceed it is dropped without
/// a word: it would not read one). Events to a connection whose outbound buffer is above the
/// high-water mark are coalesced: only the newest is kept and sent once it drains, so a stalled
/// client costs bounded memory and delays nobody.
final class ClientConnectionHandler: ChannelInboundHandler {
    /// One line, without its terminator (from ``LineFrameDecoder``).
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let hub: SubscriptionHub
    private var context: ChannelHandlerContext?
    /// Lines that arrived before admission (credentials pending), in order; handled on admission.
    private var buffer: [ByteBuffer]?
    /// Their bytes, terminators counted: held to `maximumLineLength × 4`.
    private var heldBytes = 0
    /// A line too long arrived before admission: refused once the held lines are handled.
    private var heldLineTooLong = false
    private var limiter: RateLimiter
    private var logger: Logger
    private var peer: PeerCredentials?
    /// Set by the hub when it admits the connection: whose slot it holds.
    var admission: (user: UInt32?, privileged: Bool)? = nil
    private var registered = false
    private var closing = false
    /// The newest event per topic not yet written because the connection was not writable (an
    /// orientation, lock or sensor event carries the whole orientation state, so the newest
    /// replaces the others; a light reading must not replace an orientation).
    private var pendingEvents: [SubscriptionTopic: String] = [:]
    /// What the connection subscribes to (set by the hub).
    var topics: Set<SubscriptionTopic> = []
    /// Set by the hub. A subscriber has no idle timer at all (an idle daemon with subscribers
    /// sets no periodic timers); unsubscribing starts it afresh.
    var isSubscribed = false {
        didSet {
            guard oldValue != isSubscribed else { return }
            if isSubscribed {
                idleTimer?.cancel()
                idleTimer = nil
            } else {
                lastActivity = hub.eventLoop.now
                if idleTimer == nil { scheduleIdleCheck(after: hub.configuration.idleTimeout) }
            }
        }
    }
    /// Events replaced by a newer one while this client was slow (logged when it disconnects).
    private var coalesced = 0
    /// When the connection last sent a line (or stopped being subscribed); the idle timer's base.
    /// Every time is the event loop's (`EventLoop.now`: the clock on a real loop, the test's on an
    /// `EmbeddedEventLoop`), so timer and rate tests need no wall clock.
    private var lastActivity: NIODeadline
    private var idleTimer: Scheduled<Void>?

    init(hub: SubscriptionHub) {
        self.hub = hub
        self.limiter = RateLimiter(rate: hub.configuration.requestsPerSecond, burst: hub.configuration.requestBurst)
        self.logger = hub.logger
        self.lastActivity = hub.eventLoop.now
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    /// Admission needs the peer's credentials (the per-user limits, the privileged reserve), so
    /// `hello` and every line wait for them; on a Unix socket they are read at once, on the
    /// loop, with the peer's groups where the kernel has `SO_PEERGROUPS`; otherwise the groups
    /// come from the group database, asked off the loop (``SubscriptionHub/resolveGroups(of:_:)``).
    func channelActive(context: ChannelHandlerContext) {
        PeerCredentials.of(context.channel).assumeIsolated().whenComplete { [self] result in
            guard case .success(let credentials) = result else { return admit() }
            logger[metadataKey: "peer"] = "\(credentials)"
            hub.resolveGroups(of: credentials) { [self] resolved in
                peer = resolved
                admit()
            }
        }
        context.fireChannelActive()
    }

    private func admit() {
        guard let context, !closing else { return }
        if let refusal = hub.register(self, peer: peer) {
            fail(refusal, id: nil, log: false)  // the hub logs refusals, rate-limited
            return
        }
        registered = true
        logger.debug("client connected")
        send(.hello(protocol: OrientationProtocol.version, server: hub.configuration.serverVersion, state: hub.state))
        scheduleIdleCheck(after: hub.configuration.idleTimeout)
        if buffer != nil { processLines(context: context) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if registered { hub.unregister(self) }
        registered = false
        idleTimer?.cancel()
        idleTimer = nil
        logger.debug("client disconnected", metadata: ["events-coalesced": "\(coalesced)"])
        self.context = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if error is LineFrameDecoder.LineTooLong {
            if registered {
                lineTooLong()
            } else {
                // Refused on admission, after the lines held before it (admission handles what
                // `buffer` holds).
                heldLineTooLong = true
                buffer = buffer ?? []
            }
            return
        }
        // Bytes after a line too long, while the refusal is on its way: already answered.
        if case ByteToMessageDecoderError.dataReceivedInErrorState = error, closing || heldLineTooLong { return }
        logger.debug("connection error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    // MARK: Idle timeout

    /// Checks at `lastActivity + idleTimeout` (one timer, rescheduled only when it fires; lines
    /// merely move `lastActivity`), closing a connection that is neither subscribed nor talking.
    /// Not called while subscribed.
    private func scheduleIdleCheck(after delay: Double) {
        guard let context else { return }
        idleTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .clamped(seconds: delay)) { [self] in
            idleTimer = nil
            guard !closing, self.context != nil, !isSubscribed else { return }
            let timeout = hub.configuration.idleTimeout
            let idle = Double((hub.eventLoop.now - lastActivity).nanoseconds) / 1e9
            if idle < timeout {
                scheduleIdleCheck(after: timeout - idle)
            } else {
                fail(ProtocolError(.idleTimeout, "no subscription and no request for \(timeout) s"), id: nil)
            }
        }
    }

    // MARK: Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        let line = unwrapInboundIn(data)
        if registered {
            handle(line: Array(line.readableBytesView))
            return
        }
        // Not admitted yet (credentials pending): hold little.
        heldBytes += line.readableBytes + 1
        if heldBytes > hub.configuration.maximumLineLength * 4 {
            lineTooLong()
            return
        }
        buffer = buffer ?? []
        buffer!.append(line)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let unterminated = event as? LineFrameDecoder.UnterminatedLine {
            logger.debug("client left with an unfinished line", metadata: ["bytes": "\(unterminated.byteCount)"])
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Handles the lines held until admission, in order (and a line too long among them last).
    private func processLines(context: ChannelHandlerContext) {
        let held = buffer ?? []
        buffer = nil
        heldBytes = 0
        for line in held where !closing {
            handle(line: Array(line.readableBytesView))
        }
        if heldLineTooLong { lineTooLong() }
    }

    private func lineTooLong() {
        fail(ProtocolError(.lineTooLong, "request lines are limited to \(hub.configuration.maximumLineLength) bytes"), id: nil)
    }

    private func handle(line: [UInt8]) {
        // Every line counts against the rate, blank ones too: a flood of newlines is a flood.
        let now = hub.eventLoop.now
        lastActivity = now
        guard limiter.take(now: Double(now.uptimeNanoseconds) / 1e9) else {
            fail(ProtocolError(.rateLimited, "more than \(Int(limiter.rate)) lines per second (burst \(Int(limiter.burst)))"), id: nil)
            return
        }
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }  // blank lines get no reply
        let request: ClientRequest
        do {
            request = try ClientRequest.parse(line)
        } catch {
            logger.debug("bad request", metadata: ["error": "\(error)"])
            send(.error(error, id: ClientRequest.id(ofMalformed: line)))
            return
        }
        switch request.op {
        case .subscribe:
            let topics = request.topics ?? [.orientation]
            hub.setTopics(self, Set(topics))
            pendingEvents = [:]
            send(.subscribed(state: hub.state, id: request.id))
            // Each sensor topic's current state at once, as `subscribed` carries the orientation's.
            for kind in topics.compactMap(\.sensor) {
                if let sensor = hub.sensors[kind] { send(.reading(sensor)) }
            }
            if topics.contains(.posture) { send(.posture(hub.posture)) }
        case .unsubscribe:
            hub.setTopics(self, [])
            pendingEvents = [:]
            send(.unsubscribed(id: request.id))
        case .get:
            send(.state(state: hub.state, age: hub.age, sensorActive: hub.sensorActive, subscribers: hub.subscribers,
                        sensors: AuxiliarySensorKind.allCases.compactMap { hub.sensors[$0] }, posture: hub.currentPosture, id: request.id))
        case .ping:
            send(.pong(id: request.id))
        case .lock, .unlock:
            guard let peer, hub.privileges.allows(peer) else {
                let who = peer.map { "uid \($0.uid)" } ?? "an unidentified peer"
                logger.notice("refused \(request.op.rawValue)", metadata: ["reason": "not privileged"])
                send(.error(ProtocolError(.permissionDenied, hub.privileges.refusal(request.op.rawValue, who: who)), id: request.id))
                return
            }
            if hub.setLocked(request.op == .lock) {
                logger.notice("rotation \(request.op == .lock ? "locked" : "unlocked")")
            }
            send(.lock(state: hub.state, id: request.id))
        }
    }

    // MARK: Writing

    /// Sends a reply now (replies are never coalesced). The request rate bounds how fast they
    /// come; `maximumOutputBytes` bounds how many may wait for a client that does not read.
    private func send(_ message: ServerMessage) {
        write(message.line)
        guard let context, !closing, !context.channel.isWritable,
              let queued = try? context.channel.syncOptions?.getOption(.bufferedWritableBytes),
              queued > hub.configuration.maximumOutputBytes else { return }
        logger.notice("dropping a client that does not read its replies",
                      metadata: ["queued-bytes": "\(queued)", "limit": "\(hub.configuration.maximumOutputBytes)"])
        closing = true
        buffer = nil
        context.close(promise: nil)
    }

    private func write(_ line: String) {
        guard let context, !closing else { return }
        var out = context.channel.allocator.buffer(capacity: line.utf8.count + 1)
        out.writeString(line)
        out.writeInteger(UInt8(ascii: "\n"))
        context.writeAndFlush(wrapOutboundOut(out), promise: nil)
    }

    /// Delivers an event line of `topic`, coalescing per topic while the client is slow.
    func deliverEvent(_ line: String, topic: SubscriptionTopic = .orientation) {
        guard let context, !closing else { return }
        if context.channel.isWritable {
            write(line)
        } else {
            if pendingEvents[topic] != nil { coalesced += 1 }
            pendingEvents[topic] = line
        }
    }

    /// Writes the coalesced events, orientation first.
    private func flushPendingEvents() {
        let pending = pendingEvents
        pendingEvents = [:]
        for topic in SubscriptionTopic.allCases { if let line = pending[topic] { write(line) } }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, !pendingEvents.isEmpty {
            flushPendingEvents()
        }
        context.fireChannelWritabilityChanged()
    }

    /// Says why, then closes.
    private func fail(_ error: ProtocolError, id: JSONValue?, log: Bool = true) {
        guard let context, !closing else { return }
        if log { logger.info("closing connection", metadata: ["reason": "\(error.code.rawValue)"]) }
        write(ServerMessage.error(error, id: id).line)
        closing = true
        buffer = nil
        context.close(promise: nil)
    }

    func closeWithGoodbye(reason: String) -> EventLoopFuture<Void> {
        guard let context, !closing else { return hub.eventLoop.makeSucceededVoidFuture() }
        flushPendingEvents()
        write(ServerMessage.goodbye(reason: reason).line)
        closing = true
        let promise = hub.eventLoop.makePromise(of: Void.self)
        context.close(promise: promise)
        return promise.futureResult.recover { _ in }
    }
}
