import CSystemShims
import Glibc
import Logging
import NIOCore
import OrientationCore
import OrientationProtocol
import SensorLifecycle

/// On the listening socket: when `accept` fails because the process is out of file descriptors
/// (`EMFILE`, `ENFILE`), refuses the waiting clients cleanly instead of leaving them hanging.
///
/// NIO's answer to `EMFILE` is to stop accepting for a second and try again, so every client
/// queued in the backlog waits with no hello, no error and no log line (issue 9, found with
/// `prlimit --nofile=256`). This handler keeps one descriptor in reserve (`/dev/null`); on
/// `EMFILE` it frees it, accepts each waiting client with it, writes a `too-many-clients`
/// error, closes it, and takes the reserve back. It logs at most one warning per 10 s, with the
/// number refused. If no descriptor can be freed (another thread took it), the error goes on to
/// NIO's back-off, so the loop never spins.
final class DescriptorExhaustionHandler: ChannelInboundHandler {
    typealias InboundIn = Channel

    private let listeningDescriptor: Int32
    private let logger: Logger
    private var reserve: Int32
    private var throttle = LogThrottle()
    private var refusedSinceLog = 0
    private let refusal = Array((ServerMessage.error(ProtocolError(.tooManyClients,
        "the server is out of file descriptors (its open-file limit); try again later"), id: nil).line + "\n").utf8)

    init(listeningDescriptor: Int32, logger: Logger) {
        self.listeningDescriptor = listeningDescriptor
        self.logger = logger
        reserve = Self.openReserve()
    }

    private static func openReserve() -> Int32 {
        open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if reserve >= 0 { close(reserve) }
        reserve = -1
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard let ioError = error as? IOError, ioError.errnoCode == EMFILE || ioError.errnoCode == ENFILE else {
            context.fireErrorCaught(error)
            return
        }
        if reserve >= 0 {
            close(reserve)
            reserve = -1
        }
        var refused = 0
        while true {
            let client = orientationd_accept_nonblocking(listeningDescriptor)
            guard client >= 0 else { break }  // EAGAIN: nobody else waits; EMFILE: the reserve is gone
            _ = refusal.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            close(client)
            refused += 1
        }
        reserve = Self.openReserve()
        refusedSinceLog += refused
        let (log, _) = throttle.admit(now: Double(NIODeadline.now().uptimeNanoseconds) / 1e9)
        if log {
            var limit = rlimit()
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            logger.warning("out of file descriptors: refusing new connections",
                           metadata: ["refused": "\(refusedSinceLog)", "open-file-limit": "\(limit.rlim_cur)",
                                      "errno": "\(ioError.errnoCode)"])
            refusedSinceLog = 0
        }
        if refused == 0 { context.fireErrorCaught(error) }  // nothing freed: let NIO back off
    }
}
