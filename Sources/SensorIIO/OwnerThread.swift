import Glibc
import Synchronization

/// A dedicated POSIX thread that owns C handles (a libiio context, a udev monitor): they are
/// created, used and destroyed inside `body`, which runs until it returns, checking
/// ``isStopping`` to know when to finish.
///
/// Stopping never blocks a thread of Swift's cooperative pool (issue 10): ``requestStop()``
/// sets the flag, wakes the body at once (a pipe it polls beside its own descriptor, and
/// the cancel hook it registered for a call it cannot poll, such as libiio's refill), and
/// returns; ``stop()`` also awaits the body's end without joining: the thread is detached and
/// resumes the waiters itself when the body returns.
final class OwnerThread: Sendable {
    private struct State {
        var started = false
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var cancelHook: (@Sendable () -> Void)? = nil
    }

    private let body: @Sendable (OwnerThread) -> Void
    private let stopping = Atomic<Bool>(false)
    private let state = Mutex(State())
    /// Readable once a stop was requested: bodies poll it beside their own descriptor. (A pipe:
    /// Glibc's module does not export eventfd.)
    let wakeFD: Int32
    private let wakeWriteFD: Int32

    init(_ body: @escaping @Sendable (OwnerThread) -> Void) {
        self.body = body
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        } else {
            fds = [-1, -1]
        }
        wakeFD = fds[0]
        wakeWriteFD = fds[1]
    }

    deinit {
        if wakeFD >= 0 { close(wakeFD) }
        if wakeWriteFD >= 0 { close(wakeWriteFD) }
    }

    /// True once a stop was requested.
    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    func start() throws(IIOError) {
        let retained = Unmanaged.passRetained(self)  // released by the thread when the body returns
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        state.withLock { $0.started = true }
        let result = pthread_create(&thread, &attributes, { argument in
            let owner = Unmanaged<OwnerThread>.fromOpaque(argument!).takeRetainedValue()
            owner.body(owner)
            owner.finish()
            return nil
        }, retained.toOpaque())
        guard result == 0 else {
            retained.release()
            state.withLock { $0.started = false }
            throw .cannotStartThread(errno: result)
        }
    }

    /// Asks the body to finish and wakes it; returns at once. Idempotent; safe from any thread.
    func requestStop() {
        stopping.store(true, ordering: .releasing)
        var one: UInt8 = 1
        _ = write(wakeWriteFD, &one, 1)  // non-blocking: a full pipe is already readable
        // Under the lock, so the body cannot free what the hook touches meanwhile.
        state.withLock { $0.cancelHook?() }
    }

    /// Asks the body to finish and waits until it has (without blocking a thread). Idempotent.
    func stop() async {
        requestStop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.finished || !state.started { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Registers (or, with `nil`, removes) what ``requestStop()`` calls to interrupt a blocking
    /// call the body cannot poll. Called by the body; remove it before freeing what it uses.
    func setCancelHook(_ hook: (@Sendable () -> Void)?) {
        state.withLock { $0.cancelHook = hook }
    }

    /// Sleeps until `deadline` (CLOCK_MONOTONIC seconds) or until a stop is requested.
    func sleep(until deadline: Double) {
        while !isStopping {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let remaining = deadline - (Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9)
            guard remaining > 0 else { return }
            var poller = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, Int32(min(remaining * 1000, 60_000).rounded(.up)))
        }
    }

    private func finish() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.finished = true
            state.cancelHook = nil
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
