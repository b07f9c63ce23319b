import CSystemShims
import NIOCore
import OwnerThreads

/// The group database's answer to "which groups is this user in", for peers whose groups the
/// kernel did not give (`SO_PEERGROUPS` missing, or more groups than fit). Confined to the hub's
/// loop, like the hub; the lookup itself (NSS: files, LDAP, sssd; it may block for seconds) runs
/// on an owner thread, never on the loop.
///
/// Contract: one lookup per user id at a time (connections that arrive meanwhile wait for the
/// same answer); answers are kept ``lifetime`` seconds, for at most ``capacity`` users (the
/// oldest entry goes first), so a user who reconnects in a loop costs one lookup a minute.
final class PeerGroupCache {
    static let lifetime: Int64 = 60
    static let capacity = 4096

    private enum Entry {
        case pending([([UInt32]?) -> Void])
        case known([UInt32]?, expires: NIODeadline)
    }

    private let eventLoop: EventLoop
    private let lookUp: @Sendable (UInt32, UInt32) -> [UInt32]?
    private var entries: [UInt32: Entry] = [:]
    /// Lookups run so far (tests read it).
    private(set) var lookups = 0

    /// - Parameter lookUp: the blocking question (default: the group database); tests pass one
    ///   that blocks until they let it go.
    init(eventLoop: EventLoop, lookUp: @escaping @Sendable (UInt32, UInt32) -> [UInt32]? = { PeerGroupCache.lookUp(uid: $0, gid: $1) }) {
        self.eventLoop = eventLoop
        self.lookUp = lookUp
    }

    /// Calls `completion` on the loop with the groups of `uid` (primary group `gid` included),
    /// `nil` for a user the database does not know. At once when cached.
    func groups(uid: UInt32, gid: UInt32, _ completion: @escaping ([UInt32]?) -> Void) {
        eventLoop.preconditionInEventLoop()
        switch entries[uid] {
        case .known(let groups, let expires) where expires > .now():
            completion(groups)
            return
        case .pending(var waiters):
            waiters.append(completion)
            entries[uid] = .pending(waiters)
            return
        default:
            break
        }
        if entries.count >= Self.capacity { evictOne() }
        entries[uid] = .pending([completion])
        lookups += 1
        // A thread of its own, and back to the loop with execute: no Swift task in between, so
        // the answer never waits for a free thread of the cooperative pool (in a test process,
        // synchronous tests can hold them all while a client of theirs waits for admission).
        let loop = NIOLoopBound(self, eventLoop: eventLoop)
        let lookUp = self.lookUp
        let thread = OwnerThread(name: "od-nss-groups") { _ in
            let groups = lookUp(uid, gid)
            loop.eventLoop.execute { loop.value.answer(uid: uid, groups: groups) }
        }
        do {
            try thread.start()
        } catch {
            answer(uid: uid, groups: nil)  // no thread to spare: judged by uid and primary group
        }
    }

    private func answer(uid: UInt32, groups: [UInt32]?) {
        eventLoop.preconditionInEventLoop()
        guard case .pending(let waiters) = entries[uid] else { return }
        entries[uid] = .known(groups, expires: .now() + .seconds(Self.lifetime))
        for waiter in waiters { waiter(groups) }
    }

    /// Forgets every answer (a reload may have changed the database or the group in question).
    func removeAll() {
        entries = entries.filter { if case .pending = $0.value { true } else { false } }
    }

    private func evictOne() {
        let oldest = entries.compactMap { (uid, entry) -> (UInt32, NIODeadline)? in
            if case .known(_, let expires) = entry { (uid, expires) } else { nil }
        }.min { $0.1 < $1.1 }
        if let oldest { entries[oldest.0] = nil }
    }

    /// Blocking: the group database. Off the loop only.
    static func lookUp(uid: UInt32, gid: UInt32) -> [UInt32]? {
        var room = 64
        for _ in 0..<4 {
            var groups = [UInt32](repeating: 0, count: room)
            let count = Int(orientationd_user_groups(uid, gid, &groups, Int32(room)))
            if count < 0 { return nil }
            if count <= room { return Array(groups.prefix(count)) }
            room = count
        }
        return nil
    }
}
