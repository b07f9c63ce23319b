import Glibc

// Small file helpers for the test targets (most have no Foundation).

/// The whole file as text (UTF-8, invalid bytes replaced); `""` if it cannot be read.
public func readText(_ path: String) -> String {
    readTextIfPresent(path) ?? ""
}

/// The whole file as text, or `nil` if it cannot be opened.
public func readTextIfPresent(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n == 0 { break }
        bytes.append(contentsOf: buffer[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Writes `text` to `path`, creating or truncating it.
public func writeText(_ path: String, _ text: String) {
    writeBytes(path, Array(text.utf8))
}

/// Writes `bytes` to `path`, creating or truncating it.
public func writeBytes(_ path: String, _ bytes: [UInt8]) {
    let file = fopen(path, "w")
    _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
}

/// Copies a file byte for byte and gives the copy `mode`.
public func copyFile(_ source: String, to destination: String, mode: mode_t = 0o644) throws(TestError) {
    guard let input = fopen(source, "r") else { throw TestError("cannot read \(source)") }
    defer { fclose(input) }
    guard let output = fopen(destination, "w") else { throw TestError("cannot write \(destination)") }
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&buffer, 1, buffer.count, input)
        if n == 0 { break }
        guard fwrite(buffer, 1, n, output) == n else {
            fclose(output)
            throw TestError("cannot write \(destination)")
        }
    }
    guard fclose(output) == 0, chmod(destination, mode) == 0 else { throw TestError("cannot write \(destination)") }
}

/// A fresh directory `/tmp/orientationd-<name>-XXXXXX`, mode 0755: a second uid (the hostile
/// user, a daemon dropping privileges) must reach what a test puts there.
public func temporaryDirectory(_ name: String = "test") -> String {
    var template = Array("/tmp/orientationd-\(name)-XXXXXX".utf8CString)
    let path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    chmod(path, 0o755)
    return path
}

/// Removes a directory tree (the test's own scratch: no symlinks are followed out of it).
public func removeTree(_ path: String) {
    guard let directory = opendir(path) else {
        unlink(path)
        return
    }
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name == "." || name == ".." { continue }
        let child = path + "/" + name
        var info = stat()
        if lstat(child, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            removeTree(child)
        } else {
            unlink(child)
        }
    }
    closedir(directory)
    rmdir(path)
}

/// Why a test helper failed.
public struct TestError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
