/// Why a client operation failed.
public enum OrientationClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Could not connect to the socket (no daemon, wrong path, no permission).
    case cannotConnect(path: String, reason: String)
    /// The connection closed before the reply came.
    case connectionClosed
    /// The server answered with an error.
    case server(ProtocolError)
    /// The server said something unexpected.
    case unexpectedReply(String)
    /// The server speaks a protocol version this library does not.
    case unsupportedProtocol(Int)

    public var description: String {
        switch self {
        case let .cannotConnect(path, reason): "cannot connect to \(path): \(reason)"
        case .connectionClosed: "the connection closed"
        case let .server(error): "server error \(error)"
        case let .unexpectedReply(text): "unexpected reply: \(text)"
        case let .unsupportedProtocol(version): "the server speaks protocol \(version); this client speaks \(OrientationProtocol.version)"
        }
    }
}
