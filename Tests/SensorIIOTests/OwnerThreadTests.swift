import Glibc
import OwnerThreads
import Synchronization
import Testing

/// The owner thread's stop, readiness and cancel hook (issues 29 and 31).
@Suite struct OwnerThreadTests {
    final class Flags: Sendable {
        let hookEntered = Atomic<Bool>(false)
        let released = Atomic<Bool>(false)
        let hookTimedOut = Atomic<Bool>(false)
        let hookDone = Atomic<Bool>(false)
        let sawHookDoneAfterRemoval = Atomic<Bool>(false)
    }

    static func now() -> Double { OwnerThread.monotonic() }

    /// The cancel hook runs with no lock held: while it waits for another thread, that thread
    /// can use the owner (here `ready()`, which takes the owner's lock). Under the lock, as
    /// before, the two waited for each other until the hook gave up (2 s).
    @Test func theCancelHookRunsWithNoLockHeld() async {
        let flags = Flags()
        let owner = OwnerThread(name: "od-test-hook") { owner in
            owner.setCancelHook {
                flags.hookEntered.store(true, ordering: .sequentiallyConsistent)
                let deadline = OwnerThreadTests.now() + 2
                while !flags.released.load(ordering: .sequentiallyConsistent) {
                    if OwnerThreadTests.now() > deadline {
                        flags.hookTimedOut.store(true, ordering: .sequentiallyConsistent)
                        break
                    }
                    usleep(1000)
                }
                flags.hookDone.store(true, ordering: .sequentiallyConsistent)
            }
            owner.ready()  // the hook is in place
            // Busy in a call the hook interrupts, until the test has done its part (a body that
            // left at the wake-up would remove the hook before requestStop calls it).
            // (Bounded only so that a broken build cannot hang: the pool may take long to resume
            // the test under a loaded full run.)
            let deadline = OwnerThreadTests.now() + 120
            while !flags.released.load(ordering: .sequentiallyConsistent) && OwnerThreadTests.now() < deadline { usleep(1000) }
            // Removing the hook waits for its running call: what it touches is not freed under it.
            owner.setCancelHook(nil)
            flags.sawHookDoneAfterRemoval.store(flags.hookDone.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
        }
        try? await owner.startWhenReady()
        // Another thread (a real one: the test blocks a pool thread below) asks for the stop.
        let stopper = OwnerThread(name: "od-test-stop") { _ in owner.requestStop() }
        try? stopper.start()
        let deadline = Self.now() + 60
        while !flags.hookEntered.load(ordering: .sequentiallyConsistent) && Self.now() < deadline { usleep(1000) }
        owner.ready()  // takes the owner's lock (idempotent) while the hook runs
        flags.released.store(true, ordering: .sequentiallyConsistent)
        await stopper.finished()
        await owner.finished()
        let entered = flags.hookEntered.load(ordering: .sequentiallyConsistent)
        let timedOut = flags.hookTimedOut.load(ordering: .sequentiallyConsistent)
        let waited = flags.sawHookDoneAfterRemoval.load(ordering: .sequentiallyConsistent)
        #expect(entered)
        #expect(!timedOut, "the hook ran under the owner's lock")
        #expect(waited, "setCancelHook(nil) returned while the hook ran")
    }

    /// `startWhenReady()` returns once the body says it is set up, not when the thread exists.
    @Test func startWhenReadyWaitsForTheBody() async throws {
        let setUp = Atomic<Bool>(false)
        let owner = OwnerThread(name: "od-test-ready") { owner in
            usleep(50_000)  // a slow setup (a netlink socket under load)
            setUp.store(true, ordering: .sequentiallyConsistent)
            owner.ready()
            var poller = pollfd(fd: owner.wakeFD, events: Int16(POLLIN), revents: 0)
            while !owner.isStopping { _ = poll(&poller, 1, -1) }
        }
        try await owner.startWhenReady()
        let wasSetUp = setUp.load(ordering: .sequentiallyConsistent)
        #expect(wasSetUp)
        await owner.stop()
    }

    /// A body that fails before it is ready (and returns) releases `startWhenReady()` too.
    @Test func startWhenReadyReturnsWhenTheBodyGivesUp() async throws {
        let owner = OwnerThread(name: "od-test-fail") { _ in }
        try await owner.startWhenReady()
        await owner.finished()
    }
}
