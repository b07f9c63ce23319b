import Glibc
import TestSupport

/// The built binaries (beside the test bundle) and the repository.
enum Build {
    static var productsDirectory: String {
        let me = CommandLine.arguments[0]
        var parts = me.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        while let last = parts.last, !last.isEmpty, access((parts.joined(separator: "/")) + "/orientationd", X_OK) != 0 {
            parts.removeLast()
        }
        return parts.joined(separator: "/")
    }

    static var orientationd: String { productsDirectory + "/orientationd" }
    static var orientationctl: String { productsDirectory + "/orientationctl" }
    static var repository: String { "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/") }
    static var recording: String { repository + "/data/xio-fusion/handheld.log" }
}

/// Waits until a server accepts on `path` (the daemon binds asynchronously after spawning).
func waitForSocket(_ path: String, timeout: Double = 20) -> Bool {
    let deadline = monotonicNow() + timeout
    while monotonicNow() < deadline {
        if let client = try? TestSocket(path: path), client.readLine(timeout: 2) != nil { return true }
        usleep(10_000)
    }
    return false
}

/// Writes the recording's samples between `from` and `to` seconds as a smaller log.
func trimmedRecording(from: Double, to: Double, directory: String) -> String {
    let text = readText(Build.recording)
    var out: [String] = []
    for line in text.split(separator: "\n") {
        if line.hasPrefix("#") || line.hasPrefix("time") {
            out.append(String(line))
        } else if let comma = line.firstIndex(of: ","), let t = Double(line[..<comma]), t >= from, t <= to {
            out.append(String(line))
        }
    }
    let path = directory + "/trimmed.log"
    writeText(path, out.joined(separator: "\n") + "\n")
    return path
}
