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
        switch liveness(path) {
        case .accepting: throw .socketInUse(path)
        case .stuck: throw .socketStuck(path)
        case .stale: break
        }
        guard unlink(path) == 0 || errno == ENOENT else { throw .system(path, call: "unlink", errno: errno) }
    }

    /// What a non-blocking connection attempt says about the server behind `path`.
    enum Liveness: Equatable {
        /// Nobody listens (a stale socket file): safe to replace.
        case stale
        /// A server accepts connections.
        case accepting
        /// A server listens but its backlog is full (stopped, or stuck): in use, not ours.
        case stuck
    }

    /// Probes `path` without ever blocking: a stopped daemon with a full backlog made a
    /// blocking `connect` wait forever (issue 9), so a second daemon hung at startup.
    static func liveness(_ path: String) -> Liveness {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .stale }
        defer { close(fd) }
        var address = address(path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if result == 0 { return .accepting }
        // A Unix stream socket never answers EINPROGRESS: a full backlog is EAGAIN at once.
        return errno == EAGAIN || errno == EINPROGRESS ? .stuck : .stale
    }

    /// Creates the listening socket at `path` with `mode` (and `group`) from the start.
    ///
    /// Nothing is ever applied through a symlink: in a directory another user may write to,
    /// that user could swap the path for a symlink between `bind` and a `chmod` by path and have
    /// root chmod any file (issue 9). The socket's inode gets the mode before `bind` (Linux gives
    /// the file that mode, masked by the umask, so it is never more open than asked), then the
    /// exact mode and the group are set with `fchmodat`/`fchownat(AT_SYMLINK_NOFOLLOW)`, which
    /// refuse or change a symlink itself, never its target. The umask is left alone: it is
    /// process-wide, and clearing it around `bind` raced with other threads creating files (two
    /// servers starting at once in the tests left the process at umask 0, and a unit file
    /// written meanwhile came out world-writable). - Returns: the listening descriptor
    /// (non-blocking, close-on-exec).
    static func bindListening(_ path: String, mode: UInt32, group: String?, backlog: Int32) throws(ServerError) -> Int32 {
        var gid: UInt32? = nil
        if let group {
            guard let id = PrivilegePolicy.groupID(named: group) else { throw .unknownGroup(group) }
            gid = id
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .system(path, call: "socket", errno: errno) }
        var address = address(path)
        guard fchmod(fd, mode_t(mode)) == 0 else {
            let code = errno
            close(fd)
            throw .system(path, call: "fchmod", errno: code)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw .cannotListen(path, reason: "bind: \(SystemErrorText.describe(code))")
        }
        // glibc does AT_SYMLINK_NOFOLLOW through an O_PATH descriptor; on a symlink it fails
        // (EOPNOTSUPP) rather than touch the target.
        if fchmodat(AT_FDCWD, path, mode_t(mode), AT_SYMLINK_NOFOLLOW) != 0 {
            let code = errno
            close(fd)
            throw .system(path, call: "fchmodat", errno: code)
        }
        if let gid, fchownat(AT_FDCWD, path, UInt32.max, gid, AT_SYMLINK_NOFOLLOW) != 0 {
            let code = errno
            close(fd)
            throw .system(path, call: "fchownat", errno: code)
        }
        guard listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw .system(path, call: "listen", errno: code)
        }
        return fd
    }

    /// True when others may write to `path`'s directory without its sticky bit: another user
    /// could then replace the socket (the daemon warns; see docs/PROTOCOL.md).
    static func directoryIsOpenToOthers(_ path: String) -> Bool {
        let parent = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        var info = stat()
        guard stat(parent.isEmpty ? (path.hasPrefix("/") ? "/" : ".") : parent, &info) == 0 else { return false }
        return info.st_mode & S_IWOTH != 0 && info.st_mode & S_ISVTX == 0
    }

    private static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
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
