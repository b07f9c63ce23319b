import CSystemShims
import NIOCore

/// Who is at the other end of a Unix-socket connection (`SO_PEERCRED`): fixed at connect time by
/// the kernel, so a client cannot lie about it.
public struct PeerCredentials: Hashable, Sendable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }

    /// Reads the credentials of a connected socket channel. Must run on the channel's loop.
    static func of(_ channel: Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        }
        let future: EventLoopFuture<orientationd_ucred> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(orientationd_sol_socket()), name: SocketOptionName(orientationd_so_peercred()))
        return future.map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }
    }
}

extension orientationd_ucred: @retroactive @unchecked Sendable {}
