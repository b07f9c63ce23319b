import Glibc

/// The names (`comm`) of a process's threads, from /proc.
public func threadNames(_ pid: pid_t) -> [String] {
    guard let directory = opendir("/proc/\(pid)/task") else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard let first = tid.first, first.isNumber else { continue }
        var name = readText("/proc/\(pid)/task/\(tid)/comm")
        while name.last == "\n" { name.removeLast() }
        names.append(name)
    }
    return names
}
