import Glibc
import TestSupport

// Plain Unix-socket client helpers for this target (it has no Foundation). Reads wait with
// poll(2) up to a deadline; nothing sleeps.

func connectUnix(_ path: String) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
    let ok = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
    if ok != 0 { close(fd); return -1 }
    return fd
}

func sendLine(_ fd: Int32, _ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
}

nonisolated(unsafe) private var pending: [Int32: [UInt8]] = [:]

func readLine(_ fd: Int32, timeout: Double) -> String? {
    let deadline = monotonicNow() + timeout
    while true {
        if let newline = pending[fd, default: []].firstIndex(of: 10) {
            let line = String(decoding: pending[fd]![..<newline], as: UTF8.self)
            pending[fd]!.removeSubrange(...newline)
            return line
        }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let remaining = deadline - monotonicNow()
        guard remaining > 0, poll(&poller, 1, Int32(remaining * 1000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return nil }
        pending[fd, default: []] += buffer[0..<n]
    }
}
