import Glibc

/// Seconds on `CLOCK_MONOTONIC`, for deadlines.
public func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Polls `condition` every `interval` seconds until it holds (true) or `timeout` passes (false),
/// for what is not awaitable: a file growing, a child's exit, a socket appearing.
public func waitUntil(timeout: Double, every interval: Double = 0.01, _ condition: () -> Bool) -> Bool {
    let deadline = monotonicNow() + timeout
    repeat {
        if condition() { return true }
        usleep(UInt32(interval * 1e6))
    } while monotonicNow() < deadline
    return condition()
}
