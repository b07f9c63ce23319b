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

    /// Sends a state line (`READY=1`, `STOPPING=1`, `STATUS=…`) to the service manager when
    /// `NOTIFY_SOCKET` is set; returns false when there is none or sending failed.
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
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, text, strlen(text), 0, $0, length) }
            }
        }
        return sent >= 0
    }
}
