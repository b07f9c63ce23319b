import CSystemShims
import Glibc
import NIOCore
import NIOPosix
@testable import OrientationServer
import OrientationProtocol
import Synchronization
import TestSupport
import Testing

/// Privileged-group membership without blocking the loop (issue 22, item 2): the kernel tells
/// the peer's groups with its credentials (`SO_PEERGROUPS`); where it cannot, the group database
/// is asked on an owner thread, once per user at a time, and the answer kept a minute.
@Suite struct PeerGroupTests {
    /// The kernel's answer is ascending and zero-filled past its end.
    @Test(arguments: [
        ([], nil),  // all zeros: no supplementary group, or only group 0; the database decides
        ([27, 100, 4242], [27, 100, 4242]),
        ([0, 27], [0, 27]),  // a leading zero followed by others is root's group
        ([4242], [4242]),
    ] as [([UInt32], [UInt32]?)])
    func theKernelsAnswerIsReadWithoutItsPadding(_ row: ([UInt32], [UInt32]?)) {
        var answer = orientationd_peer_groups()
        withUnsafeMutableBytes(of: &answer.gids) { raw in
            let gids = raw.bindMemory(to: UInt32.self)
            for (index, gid) in row.0.enumerated() { gids[index] = gid }
        }
        #expect(PeerCredentials.groups(from: answer) == row.1)
    }

    /// A real second user (setpriv) whose only tie to the privileged group is a supplementary
    /// group of its process: a number the group database has never heard of, so only the
    /// kernel's answer can say so. Without it, the same user is refused.
    @Test(.enabled(if: HostileUser.available, "needs root, setpriv and python3"),
          arguments: [("--groups=4242", true), ("--groups=100,4242,5000", true), ("--groups=100", false), ("--clear-groups", false)])
    func aSupplementaryGroupOfThePeerProcessIsEnough(_ row: (groups: String, allowed: Bool)) async throws {
        let harness = try await ServerHarness.start { $0.privilegedGroup = "4242" }
        let script = """
        import socket,sys
        s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f=s.makefile('rwb')
        f.readline(); f.write(b'{"op":"lock"}\\n'); f.flush(); print(f.readline().decode().strip())
        """
        let output = runProcess(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", row.groups,
                                 "/usr/bin/python3", "-c", script, harness.path]).stdout
        let reply = try ServerMessage.parse(Array((output.split(separator: "\n").first.map(String.init) ?? "").utf8))
        if row.allowed {
            guard case .lock(let state, _) = reply else { Issue.record("\(row.groups) refused: \(output)"); return }
            #expect(state.locked)
        } else {
            guard case .error(let error, _) = reply else { Issue.record("\(row.groups) allowed: \(output)"); return }
            #expect(error.code == .permissionDenied)
        }
        await harness.stop()
    }

    /// A slow group database (LDAP, sssd) blocks only the owner thread that asks it: the loop
    /// keeps serving meanwhile, 100 connections of one user cost one lookup, and the answer is
    /// reused afterwards.
    @Test func aSlowGroupDatabaseNeverBlocksTheLoop() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let gate = LookupGate()
        // Loop-confined, like the hub that owns one: reached only through the loop.
        let cache = try await loop.submit {
            NIOLoopBound(PeerGroupCache(eventLoop: loop) { uid, gid in gate.block(); return [gid, 4242] }, eventLoop: loop)
        }.get()
        let answers = Mutex<[[UInt32]?]>([])
        let (allAnswered, answered) = AsyncStream.makeStream(of: Void.self)
        try await loop.submit {
            for _ in 0..<100 {
                cache.value.groups(uid: 1000, gid: 1000) { groups in
                    if answers.withLock({ $0.append(groups); return $0.count }) == 100 { answered.yield() }
                }
            }
        }.get()
        // The lookup is blocked; the loop still runs work.
        let served = try await loop.submit { true }.get()
        #expect(served)
        #expect(answers.withLock { $0.isEmpty })
        #expect(try await loop.submit { cache.value.lookups }.get() == 1)
        gate.release()
        for await _ in allAnswered { break }
        #expect(answers.withLock { $0.allSatisfy { $0 == [1000, 4242] } })
        let again = try await loop.submit { () -> Bool in
            var cached = false
            cache.value.groups(uid: 1000, gid: 1000) { cached = $0 == [1000, 4242] }
            return cached  // answered at once, from the cache
        }.get()
        #expect(again)
        #expect(try await loop.submit { cache.value.lookups }.get() == 1)
    }
}

/// Blocks the (owner-thread) lookup until the test lets it go.
final class LookupGate: Sendable {
    private let open = Mutex(false)
    private let condition = UnsafeCondition()

    func block() {
        while !open.withLock({ $0 }) { condition.wait() }
    }

    func release() {
        open.withLock { $0 = true }
        condition.broadcast()
    }
}

/// A condition variable over a mutex of its own, for a thread that must really block.
final class UnsafeCondition: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var cond = pthread_cond_t()

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&cond, nil)
    }

    func wait() {
        pthread_mutex_lock(&mutex)
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_nsec += 10_000_000
        if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_sec += 1; deadline.tv_nsec -= 1_000_000_000 }
        pthread_cond_timedwait(&cond, &mutex, &deadline)
        pthread_mutex_unlock(&mutex)
    }

    func broadcast() {
        pthread_mutex_lock(&mutex)
        pthread_cond_broadcast(&cond)
        pthread_mutex_unlock(&mutex)
    }
}
