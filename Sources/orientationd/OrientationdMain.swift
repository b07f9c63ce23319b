import ArgumentParser
import EventLoopExecutor
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
/// monitor and the D-Bus connection have threads of their own; the socket server and its hub
/// take one of these two loops, issue 37), and nothing it runs as a task may block, as on any
/// executor.
///
/// Signals take no detour through libdispatch either: they are blocked before any other thread
/// exists, and the main thread, which has nothing else to do, takes them one by one
/// (``ProcessSignals``). So nothing serves the main actor: a job sent to it traps at once, with
/// a message, instead of hanging silently (``ExecutorTakeover``).
///
/// Called by the multi-call binary (Sources/OrientationdMulticall) unless it runs as orientationctl.
enum OrientationdMain {
    static func main() {
        ProcessSignals.block()  // first: every thread created from here on inherits the mask
        NIOSingletons.groupLoopCountSuggestion = 2
        if !ExecutorTakeover.install() {
            // Still correct, only not idle: tasks run on libdispatch's pool, whose monitor wakes
            // the daemon once a second.
            let warning = "orientationd: warning: tasks run on Swift's default executor (\(ExecutorTakeover.unavailableReason)); an idle daemon will wake once a second\n"
            _ = warning.withCString { write(2, $0, strlen($0)) }
        }
        // Not a Task {…}: in this synchronous main it would inherit the main actor, which
        // nothing serves while the main thread waits below.
        Task.detached {
            await Orientationd.main()  // exits itself on an error or after --help
            exit(0)
        }
        // The main thread takes the signals (it has nothing else to do). It used to drop the
        // binary's start-up pages from the resident set as well (issue 28's WorkingSet): that
        // freed nothing (the pages stayed in the page cache, charged to the unit's cgroup) and
        // took away the reclaim protection of mapped code, so under memory pressure the claim
        // path was evicted first (issue 37; docs/PERFORMANCE.md, "Memory as the kernel counts it").
        ProcessSignals.waitForever()
    }
}
