import CSystemShims
import Glibc

/// Decides who may send privileged requests (`lock`, `unlock`): root, listed user ids, and
/// members of a configured group (primary or supplementary).
///
/// Contract: ``allows(_:)`` never blocks. It reads only the connection's credentials: the
/// supplementary groups come from the kernel with them (`SO_PEERGROUPS`) or were looked up off
/// the event loop at admission (``PeerGroupCache``). (It used to ask the group database on the
/// loop for every admission: with NSS on LDAP or sssd that stalled every client and the
/// watchdog, and any local user could trigger it by reconnecting; issue 22.)
struct PrivilegePolicy: Sendable {
    let uids: Set<UInt32>
    let groupID: UInt32?

    /// Resolves `group` (a name or a number) in the group database: blocking, so the server
    /// calls it off the event loop.
    /// - Throws: ``ServerError/unknownGroup(_:)`` when the group does not exist.
    init(uids: Set<UInt32>, group: String?) throws(ServerError) {
        self.uids = uids
        if let group {
            guard let gid = Self.groupID(named: group) else { throw .unknownGroup(group) }
            groupID = gid
        } else {
            groupID = nil
        }
    }

    /// Whether `peer` is privileged. A peer whose groups are unknown is judged by its uid and
    /// primary group only.
    func allows(_ peer: PeerCredentials) -> Bool {
        if peer.uid == 0 || uids.contains(peer.uid) { return true }
        guard let groupID else { return false }
        return peer.gid == groupID || (peer.groups?.contains(groupID) ?? false)
    }

    static func groupID(named name: String) -> UInt32? {
        if let number = UInt32(name) { return number }
        var group = group()
        var result: UnsafeMutablePointer<group>? = nil
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getgrnam_r(name, &group, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return group.gr_gid
    }
}
