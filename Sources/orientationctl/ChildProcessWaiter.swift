import Glibc
import OwnerThreads

/// Awaits a child process's exit without blocking a Swift concurrency thread: `waitpid` runs on
/// a short-lived owner thread of its own (``OwnerThread/run(name:_:)``), which resumes the
/// caller (issue 10: no blocking wait is reachable from async code).
enum ChildProcessWaiter {
    /// The exit status of `pid` (128 + signal number when killed by a signal; 127 when it cannot
    /// be waited for).
    static func exitStatus(of pid: pid_t) async -> Int32 {
        // No thread to wait on (none could be created): as a child that cannot be waited for.
        await OwnerThread.run(name: "od-waitpid") {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 {
                guard errno == EINTR else { return 127 }
            }
            return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        } ?? 127
    }
}
