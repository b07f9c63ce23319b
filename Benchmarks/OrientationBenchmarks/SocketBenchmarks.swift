import Glibc
import Logging
import OrientationCore
import OrientationServer

/// Raw subscribers for the socket benchmarks: plain non-blocking Unix sockets read with poll(2),
/// recording when each line arrives.
struct RawSubscribers {
    var fds: [Int32] = []
    var buffers: [[UInt8]] = []

    mutating func connect(_ count: Int, path: String) {
        for _ in 0..<count {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
            let request = Array("{\"op\":\"subscribe\"}\n".utf8)
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            fds.append(fd)
            buffers.append([])
        }
        // hello + subscribed
        _ = waitForLines(2, where: { _ in true })
    }

    /// Reads until every client has received `count` more lines; returns, per client, the
    /// arrival time of the last of them (the event), using CLOCK_MONOTONIC.
    mutating func waitForLines(_ count: Int, where accept: (String) -> Bool) -> [Double] {
        var remaining = [Int](repeating: count, count: fds.count)
        var arrival = [Double](repeating: 0, count: fds.count)
        var open = fds.count
        var polls = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while open > 0 {
            guard poll(&polls, nfds_t(polls.count), 10_000) > 0 else { break }
            for i in polls.indices where polls[i].revents != 0 && remaining[i] > 0 {
                let n = recv(fds[i], &chunk, chunk.count, 0)
                guard n > 0 else { remaining[i] = 0; open -= 1; continue }
                let t = monotonic()
                buffers[i].append(contentsOf: chunk[0..<n])
                while let newline = buffers[i].firstIndex(of: 10), remaining[i] > 0 {
                    let line = String(decoding: buffers[i][..<newline], as: UTF8.self)
                    buffers[i].removeSubrange(...newline)
                    if accept(line) {
                        remaining[i] -= 1
                        if remaining[i] == 0 { arrival[i] = t; open -= 1; polls[i].events = 0 }
                    }
                }
            }
        }
        return arrival
    }

    func closeAll() { fds.forEach { close($0) } }
}

func monotonic() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

func temporarySocketPath() -> String {
    var template = Array("/tmp/orientationd-bench-XXXXXX".utf8CString)
    let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    return directory + "/bench.sock"
}

/// Latency from `publish` (what the detector's sink calls) to each subscriber reading the line.
func measureEventLatency(subscribers: Int, events: Int, stalledClients: Int) async -> [Double] {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    var logger = Logger(label: "bench")
    logger.logLevel = .critical
    let path = temporarySocketPath()
    let server = try! await OrientationSocketServer.start(configuration: ServerConfiguration(socketPath: path), logger: logger) { _ in }
    var stalled = RawSubscribers()
    stalled.connect(stalledClients, path: path)  // subscribe, then never read again
    var clients = RawSubscribers()
    clients.connect(subscribers, path: path)
    let cycle: [DeviceOrientation] = [.portrait, .landscapeLeft, .portraitUpsideDown, .landscapeRight]
    // Fill the stalled clients' buffers first, so they are truly stalled during the measurement.
    if stalledClients > 0 {
        for k in 0..<4000 {
            server.hub.publish(orientation: cycle[k % 4], time: Double(k))
            _ = clients.waitForLines(1) { $0.contains("\"orientation\"") }
        }
    }
    var latencies: [Double] = []
    for k in 0..<events {
        let start = monotonic()
        server.hub.publish(orientation: cycle[k % 4], time: Double(k))
        let arrivals = clients.waitForLines(1) { $0.contains("\"orientation\"") }
        latencies += arrivals.map { $0 - start }
    }
    clients.closeAll()
    stalled.closeAll()
    await server.shutdown(reason: "benchmark over")
    return latencies.sorted()
}

/// Resident memory of a process, in KiB (VmRSS).
func residentKiB(pid: pid_t) -> Int? {
    guard let file = fopen("/proc/\(pid)/status", "r") else { return nil }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        if text.hasPrefix("VmRSS:") {
            // "VmRSS:\t   12345 kB": a tab, then spaces.
            return Int(text.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
    }
    return nil
}
