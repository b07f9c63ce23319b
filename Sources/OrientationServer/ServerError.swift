import OwnerThreads
/// Why the server could not start. `description` is a full sentence for the log and exit message.
public enum ServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Something that is not a socket sits at the socket path; it is never deleted.
    case pathIsNotASocket(String, kind: String)
    /// A live server already listens on the path.
    case socketInUse(String)
    /// A server listens on the path but accepts nothing (stopped, or its backlog is full).
    case socketStuck(String)
    /// The path is longer than a Unix socket address holds (107 bytes).
    case pathTooLong(String)
    /// A system call failed while preparing the socket.
    case system(String, call: String, errno: Int32)
    /// The configured group does not exist.
    case unknownGroup(String)
    /// Binding or adopting the listening socket failed.
    case cannotListen(String, reason: String)

    public var description: String {
        switch self {
        case let .pathIsNotASocket(path, kind):
            return "\(path) exists and is \(kind), not a socket; refusing to replace it (remove it or choose another --socket)"
        case let .socketInUse(path):
            return "another server is already listening on \(path) (the socket is in use)"
        case let .socketStuck(path):
            return "another server holds \(path) but accepts no connections (stopped, or its backlog is full); the socket is in use, so it is left alone"
        case let .pathTooLong(path):
            return "socket path is longer than 107 bytes: \(path)"
        case let .system(path, call, code):
            return "\(call) \(path): \(SystemErrorText.describe(code))"
        case let .unknownGroup(name):
            return "group \"\(name)\" does not exist"
        case let .cannotListen(path, reason):
            return "cannot listen on \(path): \(reason)"
        }
    }
}

import Glibc

enum SystemErrorText {
    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// ``OwnerThreads/OwnerThread/run(name:_:)`` reports a thread it could not create (resolving the
/// privileged group's members) as a failed `pthread_create`.
extension ServerError: ThreadStartFailing {
    public static func cannotStartThread(errno: Int32) -> ServerError {
        .system("cannot start a thread", call: "pthread_create", errno: errno)
    }
}
