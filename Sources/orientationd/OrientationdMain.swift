import ArgumentParser
import CGlobalExecutorHook
import Glibc
import NIOCore
import NIOPosix
import OrientationDaemon

/// The daemon's entry point: Swift concurrency on SwiftNIO's event loops, then ``Orientationd``.
///
/// An `async` main (AsyncParsableCommand's own) drains the main queue through libdispatch's
/// `dispatch_main`, and Swift's default global executor is libdispatch's worker pool. The pool's
/// monitor is a 1 s timer that libdispatch starts on Linux with the first job and never stops,
/// so an idle daemon woke 20 times in 20 s, all on libdispatch's manager thread
/// (docs/PERFORMANCE.md, "An idle daemon"). Here every task runs on SwiftNIO's singleton event
/// loops instead, and the daemon's timers wait on those loops too (``Sleeper/onEventLoops``):
/// idle, nothing wakes. Two loops: the daemon's own work is light (sensor readers, the udev
/// monitor and the D-Bus connection have threads of their own; the socket server has its own
/// loop), and nothing it runs as a task may block, as on any executor.
///
/// Signals take no detour through libdispatch either: they are blocked before any other thread
/// exists, and the main thread, which has nothing else to do, takes them one by one
/// (``ProcessSignals``).
///
/// Called by the multi-call binary (Sources/OrientationdMulticall) unless it runs as orientationctl.
enum OrientationdMain {
    static func main() {
        ProcessSignals.block()  // first: every thread created from here on inherits the mask
        NIOSingletons.groupLoopCountSuggestion = 2
        // NIO's own installer (unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor)
        // finds the hook with dlsym, which fails in the static release build: set it from C.
        guard orientationd_install_enqueue_global_hook(enqueueOnEventLoop) == 1 else {
            fatalError("orientationd: Swift's global executor hook is already taken")
        }
        // Not a Task {…}: in this synchronous main it would inherit the main actor, which
        // nothing serves while the main thread waits below.
        Task.detached {
            await Orientationd.main()  // exits itself on an error or after --help
            exit(0)
        }
        ProcessSignals.waitForever()
    }
}

/// The hook: each job for Swift's global executor goes to one of the singleton event loops
/// (`any()` stays on the current loop when called from one, sparing a thread hop).
private let enqueueOnEventLoop: orientationd_enqueue_global_hook = { job, _ in
    guard let job else { return }
    MultiThreadedEventLoopGroup.singleton.any().executor.enqueue(ExecutorJob(unsafeBitCast(job, to: UnownedJob.self)))
}
