import Glibc
import TestSupport

/// A plain blocking Unix-socket client for tests: what `socat` or a Python script would do,
/// with reads that wait (poll) up to a deadline instead of sleeping.
final class TestSocket {
    private(set) var fd: Int32
    private var pending: [UInt8] = []
    private(set) var closedByPeer = false

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestError("socket: \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            // Trap: a class whose stored properties are all set still runs `deinit` when its
            // init throws. Closing here *and* in deinit closed the descriptor twice; the second
            // close hit whatever reused the number (a NIO socket, which then crashed in epoll_ctl
            // with EBADF). Close once, and mark it.
            let code = errno
            close(fd)
            fd = -1
            throw TestError("connect \(path): \(String(cString: strerror(code)))")
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Sends raw bytes (all of them).
    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    /// The next line (without `\n`), or `nil` on EOF or when nothing came within `timeout` s.
    func readLine(timeout: Double = 5) -> String? {
        let deadline = monotonicNow() + timeout
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            let remaining = deadline - monotonicNow()
            guard remaining > 0, !closedByPeer else { return nil }
            guard fill(timeout: remaining) else { return nil }
        }
    }

    /// Reads lines until one satisfies `predicate`; returns it (or `nil` on EOF/timeout).
    func readLine(timeout: Double = 5, where predicate: (String) -> Bool) -> String? {
        let deadline = monotonicNow() + timeout
        while let line = readLine(timeout: max(0, deadline - monotonicNow())) {
            if predicate(line) { return line }
        }
        return nil
    }

    /// True when the peer closed the connection within `timeout` (after any pending lines).
    func waitForClose(timeout: Double = 5) -> Bool {
        let deadline = monotonicNow() + timeout
        while !closedByPeer {
            let remaining = deadline - monotonicNow()
            guard remaining > 0, fill(timeout: remaining) || closedByPeer else { return closedByPeer }
        }
        return true
    }

    /// Reads whatever is available within `timeout`; false on timeout.
    private func fill(timeout: Double) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, Int32(max(1, timeout * 1000)))
        guard ready > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &buffer, buffer.count, 0)
        if n <= 0 {
            closedByPeer = true
            return false
        }
        pending.append(contentsOf: buffer[0..<n])
        return true
    }
}

/// 1,000 clients and their server ends live in one test process.
func raiseFileLimit() {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}

extension TestSocket {
    /// Connects and reads the server's `hello`.
    static func greeted(_ path: String) throws -> TestSocket {
        let socket = try TestSocket(path: path)
        _ = socket.readLine()
        return socket
    }

    /// Connects, reads `hello`, subscribes and reads the `subscribed` reply.
    static func subscriber(_ path: String) throws -> TestSocket {
        let socket = try greeted(path)
        socket.send("{\"op\":\"subscribe\"}\n")
        _ = socket.readLine()
        return socket
    }
}

