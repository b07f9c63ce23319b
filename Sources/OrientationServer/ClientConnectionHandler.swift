import Logging
import NIOCore
import OrientationCore
import OrientationProtocol

/// One client connection: frames lines, enforces limits, answers requests, delivers events.
///
/// Contract: a bad request gets an `error` reply and the connection stays open; only the limits
/// (line length, request rate, client count) close it, after saying why. Events to a connection
/// whose outbound buffer is above the high-water mark are coalesced: only the newest is kept
/// and sent once it drains, so a stalled client costs bounded memory and delays nobody.
final class ClientConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let hub: SubscriptionHub
    private var context: ChannelHandlerContext?
    private var buffer: ByteBuffer?
    private var limiter: RateLimiter
    private var logger: Logger
    private var peer: PeerCredentials?
    private var registered = false
    private var closing = false
    /// The newest event not yet written because the connection was not writable.
    private var pendingEvent: String?
    var isSubscribed = false
    /// Events replaced by a newer one while this client was slow (logged when it disconnects).
    private var coalesced = 0

    init(hub: SubscriptionHub) {
        self.hub = hub
        self.limiter = RateLimiter(rate: hub.configuration.requestsPerSecond, burst: hub.configuration.requestBurst)
        self.logger = hub.logger
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        guard hub.register(self) else {
            logger.warning("refusing a connection: client limit reached", metadata: ["limit": "\(hub.configuration.maximumClients)"])
            fail(ProtocolError(.tooManyClients, "the server is at its limit of \(hub.configuration.maximumClients) clients"), id: nil)
            return
        }
        registered = true
        PeerCredentials.of(context.channel).assumeIsolated().whenComplete { [self] result in
            if case .success(let credentials) = result {
                peer = credentials
                logger[metadataKey: "peer"] = "\(credentials)"
            }
            logger.debug("client connected")
        }
        send(.hello(protocol: OrientationProtocol.version, server: hub.configuration.serverVersion, state: hub.state))
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if registered { hub.unregister(self) }
        registered = false
        if let buffer, buffer.readableBytes > 0 {
            logger.debug("client left with an unfinished line", metadata: ["bytes": "\(buffer.readableBytes)"])
        }
        logger.debug("client disconnected", metadata: ["events-coalesced": "\(coalesced)"])
        self.context = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        logger.debug("connection error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    // MARK: Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        var incoming = unwrapInboundIn(data)
        if buffer == nil {
            buffer = incoming
        } else {
            buffer!.writeBuffer(&incoming)
        }
        let limit = hub.configuration.maximumLineLength
        while !closing, var current = buffer {
            guard let newline = current.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
                if current.readableBytes > limit { lineTooLong() }
                break
            }
            let length = newline - current.readerIndex
            let line = current.readBytes(length: length)!
            current.moveReaderIndex(forwardBy: 1)
            buffer = current.readableBytes > 0 ? current : nil
            if length > limit {
                lineTooLong()
                break
            }
            handle(line: line.last == UInt8(ascii: "\r") ? Array(line.dropLast()) : line)
        }
        if let current = buffer, current.readerIndex > 64 * 1024 {
            var compacted = current
            compacted.discardReadBytes()
            buffer = compacted
        }
    }

    private func lineTooLong() {
        fail(ProtocolError(.lineTooLong, "request lines are limited to \(hub.configuration.maximumLineLength) bytes"), id: nil)
    }

    private func handle(line: [UInt8]) {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }  // blank lines are harmless
        let now = Double(NIODeadline.now().uptimeNanoseconds) / 1e9
        guard limiter.take(now: now) else {
            fail(ProtocolError(.rateLimited, "more than \(Int(limiter.rate)) requests per second (burst \(Int(limiter.burst)))"), id: nil)
            return
        }
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
            hub.setSubscribed(self, true)
            pendingEvent = nil
            send(.subscribed(state: hub.state, id: request.id))
        case .unsubscribe:
            hub.setSubscribed(self, false)
            pendingEvent = nil
            send(.unsubscribed(id: request.id))
        case .get:
            send(.state(state: hub.state, age: hub.age, sensorActive: hub.sensorActive, subscribers: hub.subscribers, id: request.id))
        case .ping:
            send(.pong(id: request.id))
        case .lock, .unlock:
            guard let peer, hub.privileges.allows(peer) else {
                let who = peer.map { "uid \($0.uid)" } ?? "an unidentified peer"
                logger.notice("refused \(request.op.rawValue)", metadata: ["reason": "not privileged"])
                send(.error(ProtocolError(.permissionDenied, "\(request.op.rawValue) needs root or the privileged group; \(who) is neither"), id: request.id))
                return
            }
            if hub.setLocked(request.op == .lock) {
                logger.notice("rotation \(request.op == .lock ? "locked" : "unlocked")")
            }
            send(.lock(state: hub.state, id: request.id))
        }
    }

    // MARK: Writing

    /// Sends a reply now (replies are never coalesced; the request rate bounds them).
    private func send(_ message: ServerMessage) {
        write(message.line)
    }

    private func write(_ line: String) {
        guard let context, !closing else { return }
        var out = context.channel.allocator.buffer(capacity: line.utf8.count + 1)
        out.writeString(line)
        out.writeInteger(UInt8(ascii: "\n"))
        context.writeAndFlush(wrapOutboundOut(out), promise: nil)
    }

    /// Delivers an event line, coalescing while the client is slow.
    func deliverEvent(_ line: String) {
        guard let context, !closing else { return }
        if context.channel.isWritable {
            write(line)
        } else {
            if pendingEvent != nil { coalesced += 1 }
            pendingEvent = line
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let line = pendingEvent {
            pendingEvent = nil
            write(line)
        }
        context.fireChannelWritabilityChanged()
    }

    /// Says why, then closes.
    private func fail(_ error: ProtocolError, id: JSONValue?) {
        guard let context, !closing else { return }
        logger.info("closing connection", metadata: ["reason": "\(error.code.rawValue)"])
        send(.error(error, id: id))
        closing = true
        buffer = nil
        context.close(promise: nil)
    }

    func closeWithGoodbye(reason: String) -> EventLoopFuture<Void> {
        guard let context, !closing else { return hub.eventLoop.makeSucceededVoidFuture() }
        if let line = pendingEvent {
            pendingEvent = nil
            write(line)
        }
        send(.goodbye(reason: reason))
        closing = true
        let promise = hub.eventLoop.makePromise(of: Void.self)
        context.close(promise: promise)
        return promise.futureResult.recover { _ in }
    }
}
