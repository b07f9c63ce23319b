import Glibc

/// The two pieces of systemd's protocol a daemon needs, without linking libsystemd:
/// socket activation (`LISTEN_FDS`) and readiness notification (`NOTIFY_SOCKET`).
public enum SystemdIntegration {
    /// The listening socket systemd passed (fd 3) when `LISTEN_PID` is this process and
    /// `LISTEN_FDS` ≥ 1; `nil` otherwise. Clears the variables so children do not inherit them.
    public static func takeListeningSocket() -> Int32? {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pidText = getenv("LISTEN_PID").map({ String(cString: $0) }), let pid = Int32(pidText), pid == getpid(),
              let countText = getenv("LISTEN_FDS").map({ String(cString: $0) }), let count = Int(countText), count >= 1 else {
            return nil
        }
        let fd: Int32 = 3
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }

    /// The watchdog interval systemd asks for (`WATCHDOG_USEC`, when `WATCHDOG_PID` is unset
    /// or this process), in seconds; `nil` without one.
    public static func watchdogInterval() -> Double? {
        if let pidText = getenv("WATCHDOG_PID").map({ String(cString: $0) }), Int32(pidText) != getpid() { return nil }
        guard let text = getenv("WATCHDOG_USEC").map({ String(cString: $0) }), let usec = UInt64(text), usec > 0 else { return nil }
        return Double(usec) / 1e6
    }

    /// CLOCK_MONOTONIC in microseconds (`MONOTONIC_USEC=` beside `RELOADING=1`).
    public static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }

    /// Sends a state line (`READY=1`, `STOPPING=1`, `STATUS=…`) to the service manager when
    /// `NOTIFY_SOCKET` is set; returns false when there is none or sending failed. Never blocks:
    /// when the manager's queue is full the line is dropped (and false returned).
    @discardableResult
    public static func notify(_ state: String) -> Bool {
        guard let socketPath = getenv("NOTIFY_SOCKET").map({ String(cString: $0) }), !socketPath.isEmpty else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }  // abstract namespace
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: pathBytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count)
        let sent = state.withCString { text in
            withUnsafePointer(to: &address) {
                // Never blocking: a datagram queue the manager does not drain (net.unix.max_dgram_qlen,
                // 10 by default) would otherwise stall whichever thread sends the next ping.
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, text, strlen(text), Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
        return sent >= 0
    }
}
