import Glibc

/// Awaits a child process's exit without blocking a Swift concurrency thread: `waitpid` runs on
/// a short-lived detached pthread of its own, which resumes the continuation (issue 10: no
/// blocking wait is reachable from async code).
enum ChildProcessWaiter {
    /// The exit status of `pid` (128 + signal number when killed by a signal).
    static func exitStatus(of pid: pid_t) async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let job = Unmanaged.passRetained(Job(pid: pid, continuation: continuation)).toOpaque()
            var thread = pthread_t()
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
            defer { pthread_attr_destroy(&attributes) }
            let started = pthread_create(&thread, &attributes, { raw in
                let job = Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue()
                job.continuation.resume(returning: job.waitSynchronously())
                return nil
            }, job)
            if started != 0 {
                // No thread to spare: wait here rather than lose the status.
                let job = Unmanaged<Job>.fromOpaque(job).takeRetainedValue()
                job.continuation.resume(returning: job.waitSynchronously())
            }
        }
    }

    private final class Job {
        let pid: pid_t
        let continuation: CheckedContinuation<Int32, Never>

        init(pid: pid_t, continuation: CheckedContinuation<Int32, Never>) {
            self.pid = pid
            self.continuation = continuation
        }

        func waitSynchronously() -> Int32 {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 {
                guard errno == EINTR else { return 127 }
            }
            return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        }
    }
}
