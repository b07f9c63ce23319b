import CSystemShims
import NIOCore

/// Who is at the other end of a Unix-socket connection (`SO_PEERCRED`, `SO_PEERGROUPS`): fixed
/// at connect time by the kernel, so a client cannot lie about it.
public struct PeerCredentials: Hashable, Sendable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    /// The peer's supplementary groups: the kernel's list at connect time (`SO_PEERGROUPS`), or
    /// the group database's (asked off the event loop, ``PeerGroupCache``) where the kernel has
    /// no such option or the peer has more than ``peerGroupsLimit``; `nil` until known, and when
    /// the user is in no database.
    public var groups: [UInt32]?

    public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32]? = nil) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }

    /// Room for this many groups in the kernel's answer.
    static var peerGroupsLimit: Int { Int(ORIENTATIOND_PEER_GROUPS_MAX) }

    /// Reads the credentials of a connected socket channel, and its groups where the kernel
    /// tells them (`groups` stays `nil` otherwise). Must run on the channel's loop; never blocks
    /// (two `getsockopt` calls, no user database).
    static func of(_ channel: Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        }
        let level = SocketOptionLevel(orientationd_sol_socket())
        let credentials: EventLoopFuture<orientationd_ucred> = provider.unsafeGetSocketOption(
            level: level, name: SocketOptionName(orientationd_so_peercred()))
        return credentials.flatMap { credentials in
            let groups: EventLoopFuture<orientationd_peer_groups> = provider.unsafeGetSocketOption(
                level: level, name: SocketOptionName(orientationd_so_peergroups()))
            return groups.map { answer -> PeerCredentials in
                PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid, groups: Self.groups(from: answer))
            }.recover { _ in
                // No SO_PEERGROUPS (Linux < 4.13), or more groups than fit: asked elsewhere.
                PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
            }
        }
    }

    /// The groups in the kernel's answer, or `nil` when it cannot be read unambiguously. The
    /// answer is ascending and the value zero-filled past its end, so trailing zeros are not
    /// groups; a leading zero followed by others is group 0 (root). All zeros is either "no
    /// supplementary group" or "only group 0": `nil` then, so the group database decides.
    static func groups(from answer: orientationd_peer_groups) -> [UInt32]? {
        let gids = withUnsafeBytes(of: answer.gids) { Array($0.bindMemory(to: UInt32.self)) }
        let listed = gids.filter { $0 != 0 }
        if listed.isEmpty { return nil }
        return gids.first == 0 ? [0] + listed : listed
    }
}

extension orientationd_ucred: @retroactive @unchecked Sendable {}
extension orientationd_peer_groups: @retroactive @unchecked Sendable {}
