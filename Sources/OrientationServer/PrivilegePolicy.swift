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
    /// The configured group's name, for refusals.
    let groupName: String?

    /// Resolves `group` (a name or a number) in the group database: blocking, so the server
    /// calls it off the event loop.
    /// - Throws: ``ServerError/unknownGroup(_:)`` when the group does not exist.
    init(uids: Set<UInt32>, group: String?) throws(ServerError) {
        self.uids = uids
        groupName = group
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

    /// Why `who` may not `op`, and what would let them: whether a privileged group is
    /// configured at all, and how to configure one or join it (issue 21: "needs root or the
    /// privileged group" did not say that none was configured).
    func refusal(_ op: String, who: String) -> String {
        if let groupName {
            return "\(op) needs root or membership of the privileged group \"\(groupName)\"; \(who) has neither. "
                + "Add the user to it (usermod -aG \(groupName) USER, then log in again)"
        }
        return "\(op) needs root, and no privileged group is configured; \(who) is not root. "
            + "Run it as root (sudo), or set privileged-group = GROUP in [server] of /etc/orientationd/orientationd.conf "
            + "(or orientationd --privileged-group GROUP), reload (systemctl reload orientationd) and join that group"
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
