import Glibc

/// Prepares and cleans up the socket file.
///
/// - A stale socket left by a crashed daemon (nothing accepts on it) is removed.
/// - A socket with a live server behind it is an error: two daemons must not fight.
/// - Anything else at the path (a regular file, a directory, a symbolic link) is never deleted.
enum SocketPath {
    static func prepare(_ path: String) throws(ServerError) {
        guard path.utf8.count <= 107 else { throw .pathTooLong(path) }
        let parent = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if !parent.isEmpty { try makeDirectories(parent) }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw .system(path, call: "lstat", errno: errno)
        }
        switch info.st_mode & S_IFMT {
        case S_IFSOCK: break
        case S_IFREG: throw .pathIsNotASocket(path, kind: "a regular file")
        case S_IFDIR: throw .pathIsNotASocket(path, kind: "a directory")
        case S_IFLNK: throw .pathIsNotASocket(path, kind: "a symbolic link")
        default: throw .pathIsNotASocket(path, kind: "a special file")
        }
        if isAccepting(path) { throw .socketInUse(path) }
        guard unlink(path) == 0 || errno == ENOENT else { throw .system(path, call: "unlink", errno: errno) }
    }

    /// True when a server accepts connections on `path`.
    static func isAccepting(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return result == 0
    }

    /// Applies mode and group after binding.
    static func setPermissions(_ path: String, mode: UInt32, group: String?) throws(ServerError) {
        if let group {
            guard let gid = PrivilegePolicy.groupID(named: group) else { throw .unknownGroup(group) }
            guard chown(path, UInt32.max, gid) == 0 else { throw .system(path, call: "chown", errno: errno) }
        }
        guard chmod(path, mode_t(mode)) == 0 else { throw .system(path, call: "chmod", errno: errno) }
    }

    /// The socket's inode, to remove only our own socket at shutdown.
    static func identity(_ path: String) -> (dev: UInt, ino: UInt)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (UInt(info.st_dev), UInt(info.st_ino))
    }

    static func removeIfOurs(_ path: String, identity: (dev: UInt, ino: UInt)?) {
        guard let identity, let now = Self.identity(path), now == identity else { return }
        unlink(path)
    }

    private static func makeDirectories(_ path: String) throws(ServerError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw .system(current, call: "mkdir", errno: errno)
            }
        }
    }
}
