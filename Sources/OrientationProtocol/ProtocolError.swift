/// A protocol-level error: what the server sends as `{"type":"error","code":…,"message":…}`,
/// and what the client library throws for a malformed server message.
public struct ProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable, machine-readable error codes of protocol v1 (docs/PROTOCOL.md).
    public enum Code: String, Sendable, CaseIterable {
        /// The line is not valid JSON.
        case invalidJSON = "invalid-json"
        /// Valid JSON, but not a request object with a string `op`.
        case invalidRequest = "invalid-request"
        /// A request `op` this server does not know.
        case unknownOp = "unknown-op"
        /// A line longer than the server's limit; the connection is closed.
        case lineTooLong = "line-too-long"
        /// Too many requests too fast; the connection is closed.
        case rateLimited = "rate-limited"
        /// The server is at a client limit (its own, the peer's user's, or its file
        /// descriptors); the connection is closed.
        case tooManyClients = "too-many-clients"
        /// The connection was neither subscribed nor sending requests for the idle timeout; it
        /// is closed.
        case idleTimeout = "idle-timeout"
        /// The peer's credentials do not allow this request (`lock`, `unlock`).
        case permissionDenied = "permission-denied"
        /// A server message the client could not understand.
        case invalidMessage = "invalid-message"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// True for the errors after which the server closes the connection.
    public var closesConnection: Bool {
        code == .lineTooLong || code == .rateLimited || code == .tooManyClients || code == .idleTimeout
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
