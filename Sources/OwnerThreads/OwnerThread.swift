import CSystemShims
import Glibc
import Synchronization

/// A dedicated POSIX thread that owns C handles (a libiio context, a udev monitor, an sd-bus
/// connection) or makes a blocking call (`waitpid`): they are created, used and destroyed inside
/// `body`, which runs until it returns, checking ``isStopping`` to know when to finish. The one
/// owner-thread type of the project: the IIO reader, the udev monitor and enumeration, the D-Bus
/// facade and `orientationctl follow --exec`'s child waiter all use it.
///
/// Contract:
/// - Stopping never blocks a thread of Swift's cooperative pool (issue 10): ``requestStop()``
///   sets the flag, wakes the body at once (``wakeFD`` becomes readable, and the cancel hook it
///   registered for a call it cannot poll, such as libiio's refill, is called) and returns;
///   ``stop()`` also awaits the body's end without joining: the thread is detached and resumes
///   the waiters itself when the body returns. Nothing ever calls `pthread_join`.
/// - ``wake()`` makes ``wakeFD`` readable without asking the body to stop (the D-Bus facade's
///   "a new state is waiting"); a body that uses it calls ``drainWakeups()`` after each wake.
/// - ``interruptSleep()`` ends the body's current (or next) ``sleep(until:)`` early, once: a
///   paced reader asked to read now (issue 37: the posture's base reader parked while the
///   machine lies still, woken when the display moves).
/// - ``startWhenReady()`` starts the thread and returns once the body has called ``ready()`` (or
///   returned): a body that sets something up before it serves (the udev monitor's netlink
///   socket) makes its caller wait for that, not only for the thread's creation.
/// - The thread is named (`name`, at most 15 bytes are kept) so `ps -T` and a debugger tell the
///   owners apart.
public final class OwnerThread: Sendable {
    /// The thread could not be created (`pthread_create`'s error number).
    public struct StartError: Error, Sendable, CustomStringConvertible {
        public let errno: Int32
        public var description: String { "cannot start a thread: \(String(cString: strerror(errno)))" }
    }

    private struct State {
        var started = false
        var finished = false
        /// The body said it is set up (``ready()``).
        var isReady = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var readyWaiters: [CheckedContinuation<Void, Never>] = []
        var cancelHook: (@Sendable () -> Void)? = nil
        /// ``requestStop()`` calls of the hook in progress (made with no lock held): removing
        /// the hook waits for them, so the body never frees what a running hook touches.
        var hookCalls = 0
    }

    private let name: String
    private let body: @Sendable (OwnerThread) -> Void
    private let stopping = Atomic<Bool>(false)
    private let interrupted = Atomic<Bool>(false)
    private let state = Mutex(State())
    /// Readable once a stop was requested (or after ``wake()``): bodies poll it beside their own
    /// descriptor. (A pipe: Glibc's module does not export eventfd.)
    public let wakeFD: Int32
    private let wakeWriteFD: Int32
    /// `pipe()`'s error when the wake-up pipe could not be made (no descriptors left): such a
    /// thread could never be woken or stopped, so ``start()`` refuses it.
    private let pipeErrno: Int32

    /// - Parameters:
    ///   - name: the thread's name (`od-` and a word, e.g. `od-iio-reader`).
    ///   - body: runs on the new thread; returns when ``isStopping`` (or when its work is done).
    public init(name: String, _ body: @escaping @Sendable (OwnerThread) -> Void) {
        self.name = name
        self.body = body
        var fds: [Int32] = [-1, -1]
        var failure: Int32 = 0
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        } else {
            failure = errno
            fds = [-1, -1]
        }
        wakeFD = fds[0]
        wakeWriteFD = fds[1]
        pipeErrno = failure
    }

    deinit {
        if wakeFD >= 0 { close(wakeFD) }
        if wakeWriteFD >= 0 { close(wakeWriteFD) }
    }

    /// True once a stop was requested.
    public var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Starts the thread. Call once. Throws when the thread cannot be created, or when the
    /// wake-up pipe could not be made (a thread nothing could stop is never started).
    public func start() throws(StartError) {
        guard pipeErrno == 0 else { throw StartError(errno: pipeErrno) }
        let retained = Unmanaged.passRetained(self)  // released by the thread when the body returns
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        state.withLock { $0.started = true }
        let result = pthread_create(&thread, &attributes, { argument in
            let owner = Unmanaged<OwnerThread>.fromOpaque(argument!).takeRetainedValue()
            orientationd_set_thread_name(owner.name)
            owner.body(owner)
            owner.finish()
            return nil
        }, retained.toOpaque())
        guard result == 0 else {
            retained.release()
            state.withLock { $0.started = false }
            throw StartError(errno: result)
        }
    }

    /// Starts the thread and waits, without blocking a thread, until the body calls ``ready()``
    /// or returns (a body that failed to set up returns without it: the caller learns that
    /// from what the body reports, not from here). Call once, instead of ``start()``.
    public func startWhenReady() async throws(StartError) {
        try start()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.isReady || state.finished { return true }
                state.readyWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Called by the body once it is set up: resumes ``startWhenReady()``. Idempotent.
    public func ready() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isReady = true
            defer { state.readyWaiters = [] }
            return state.readyWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Asks the body to finish and wakes it; returns at once. Idempotent; safe from any thread.
    public func requestStop() {
        stopping.store(true, ordering: .releasing)
        wake()
        // Called with no lock held; the count keeps the body's setCancelHook(nil) (and so the
        // freeing of what the hook touches) waiting until the call has returned.
        let hook = state.withLock { state -> (@Sendable () -> Void)? in
            guard let hook = state.cancelHook else { return nil }
            state.hookCalls += 1
            return hook
        }
        guard let hook else { return }
        hook()
        state.withLock { $0.hookCalls -= 1 }
    }

    /// Makes ``wakeFD`` readable (without asking the body to stop). Safe from any thread.
    public func wake() {
        var one: UInt8 = 1
        _ = write(wakeWriteFD, &one, 1)  // non-blocking: a full pipe is already readable
    }

    /// Empties the wake-up pipe (on the owner thread, after a ``wake()``).
    public func drainWakeups() {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &buffer, { read(wakeFD, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Asks the body to finish and waits until it has (without blocking a thread). Idempotent.
    public func stop() async {
        requestStop()
        await finished()
    }

    /// Waits until the body has returned (or at once if the thread never started), without
    /// asking it to stop and without blocking a thread.
    public func finished() async {
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
    /// call the body cannot poll. Called by the body; remove it before freeing what it uses:
    /// removing returns only once no call of the old hook is running (a hook is a few
    /// microseconds, `iio_buffer_cancel`; the owner thread yields meanwhile).
    public func setCancelHook(_ hook: (@Sendable () -> Void)?) {
        while true {
            let replaced = state.withLock { state -> Bool in
                guard state.hookCalls == 0 else { return false }
                state.cancelHook = hook
                return true
            }
            if replaced { return }
            sched_yield()
        }
    }

    /// Ends the body's current ``sleep(until:)`` at once, or its next one if it is not sleeping
    /// (several calls before it sleeps end one sleep). Safe from any thread; returns at once.
    public func interruptSleep() {
        interrupted.store(true, ordering: .releasing)
        wake()
    }

    /// Whether ``interruptSleep()`` was called since the last sleep it ended; clears it. A body
    /// that waits in a `poll` of its own (beside ``wakeFD``) asks this after a wake-up.
    public func takeInterrupt() -> Bool {
        interrupted.exchange(false, ordering: .acquiringAndReleasing)
    }

    /// Sleeps until `deadline` (CLOCK_MONOTONIC seconds), until a stop is requested, or until
    /// ``interruptSleep()``. A ``wake()`` that is neither does not end the sleep (it is drained).
    public func sleep(until deadline: Double) {
        while !isStopping {
            if takeInterrupt() { return }
            let remaining = deadline - Self.monotonic()
            guard remaining > 0 else { return }
            var poller = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, Int32(min(remaining * 1000, 60_000).rounded(.up))) > 0, !isStopping { drainWakeups() }
        }
    }

    /// CLOCK_MONOTONIC in seconds.
    public static func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9
    }

    private func finish() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.finished = true
            state.cancelHook = nil  // a call in progress holds its own reference
            defer { state.waiters = []; state.readyWaiters = [] }
            return state.waiters + state.readyWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// An error that can say "no thread could be created", so that ``OwnerThread/run(name:_:)``
/// reports that instead of running a blocking call on the caller's thread.
public protocol ThreadStartFailing: Error {
    static func cannotStartThread(errno: Int32) -> Self
}

extension OwnerThread {
    /// Runs `work` on a short-lived owner thread of its own and returns its result, without
    /// blocking the caller's thread: how async code makes a blocking call (a libudev
    /// enumeration, NSS). If no thread can be created, that is retried for about a second and a
    /// half (EAGAIN: a thread limit reached for a moment), then thrown as
    /// `Failure.cannotStartThread(errno:)`: `work` never runs on the caller's thread (an event
    /// loop's, in the daemon; issue 29).
    public static func run<T: Sendable, Failure: ThreadStartFailing>(name: String, _ work: @escaping @Sendable () throws(Failure) -> T) async throws(Failure) -> T {
        let outcome: Result<T, Failure>? = await runOnOwnThread(name: name) { () -> Result<T, Failure> in Result { () throws(Failure) -> T in try work() } }
        guard let outcome else { throw Failure.cannotStartThread(errno: EAGAIN) }
        return try outcome.get()
    }

    /// ``run(name:_:)`` for work that cannot fail: `nil` when no thread could be created (after
    /// the same retries); `work` never runs on the caller's thread.
    public static func run<T: Sendable>(name: String, _ work: @escaping @Sendable () -> T) async -> T? {
        await runOnOwnThread(name: name, work)
    }

    private static func runOnOwnThread<T: Sendable>(name: String, _ work: @escaping @Sendable () -> T) async -> T? {
        var delay = 0.02
        for attempt in 0..<7 {
            if attempt > 0 {
                try? await Task.sleep(for: .seconds(delay))  // a failure path only: nothing waits here otherwise
                delay *= 2
            }
            let started: Result<T, StartError> = await withCheckedContinuation { continuation in
                let thread = OwnerThread(name: name) { _ in continuation.resume(returning: .success(work())) }
                do throws(StartError) {
                    try thread.start()
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            switch started {
            case .success(let value): return value
            case .failure(let error) where error.errno == EAGAIN || error.errno == EMFILE || error.errno == ENFILE: continue
            case .failure: return nil
            }
        }
        return nil
    }
}
