import CSystemShims
import Glibc

/// Decides who may send privileged requests (`lock`, `unlock`): root, listed user ids, and
/// members of a configured group (primary or supplementary, per the group database).
struct PrivilegePolicy: Sendable {
    let uids: Set<UInt32>
    let groupID: UInt32?

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

    func allows(_ peer: PeerCredentials) -> Bool {
        if peer.uid == 0 || uids.contains(peer.uid) { return true }
        guard let groupID else { return false }
        return orientationd_user_in_group(peer.uid, peer.gid, groupID) == 1
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
