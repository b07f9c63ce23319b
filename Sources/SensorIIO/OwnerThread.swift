import Glibc
import Synchronization

/// A dedicated POSIX thread that owns C handles (a libiio context, a udev monitor): they are
/// created, used and destroyed inside `body`, which runs until it returns, checking
/// ``isStopping`` to know when to finish. ``stop()`` sets that flag and joins the thread.
final class OwnerThread: Sendable {
    private let body: @Sendable (OwnerThread) -> Void
    private let stopping = Mutex(false)
    private let handle = Mutex<pthread_t?>(nil)

    init(_ body: @escaping @Sendable (OwnerThread) -> Void) {
        self.body = body
    }

    /// True once ``stop()`` was called.
    var isStopping: Bool { stopping.withLock { $0 } }

    func start() throws(IIOError) {
        let retained = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { argument in
            let owner = Unmanaged<OwnerThread>.fromOpaque(argument!).takeRetainedValue()
            owner.body(owner)
            return nil
        }, retained.toOpaque())
        guard result == 0 else {
            retained.release()
            throw IIOError("cannot start a thread: \(String(cString: strerror(result)))")
        }
        handle.withLock { $0 = thread }
    }

    /// Asks the body to finish and waits for it. Idempotent.
    func stop() {
        stopping.withLock { $0 = true }
        if let thread = handle.withLock({ value -> pthread_t? in
            defer { value = nil }
            return value
        }) {
            pthread_join(thread, nil)
        }
    }
}
