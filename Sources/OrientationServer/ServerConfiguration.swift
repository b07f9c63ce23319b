/// How the socket server runs. Every limit exists so that one misbehaving client can never hurt
/// the daemon or any other client; each has a documented error (docs/PROTOCOL.md).
public struct ServerConfiguration: Sendable, Equatable {
    /// The socket's path (its parent directory is created if missing).
    public var socketPath: String
    /// Permission bits of the socket file. Connecting needs write permission; anyone may
    /// subscribe by default, `lock`/`unlock` are checked by peer credentials.
    public var socketMode: UInt32 = 0o666
    /// Group owning the socket file, if any (with a mode such as 0660, only its members connect).
    public var socketGroup: String? = nil
    /// Besides root, members of this group may send `lock` and `unlock`.
    public var privilegedGroup: String? = nil
    /// Besides root, these user ids may send `lock` and `unlock` (for tests and special setups).
    public var privilegedUIDs: Set<UInt32> = []
    /// Longest accepted request line, in bytes (without the newline).
    public var maximumLineLength = 4096
    /// Most simultaneous connections; more are told `too-many-clients` and closed.
    public var maximumClients = 4096
    /// Most simultaneous connections of one user id (root is exempt): one user cannot take
    /// every slot. More are told `too-many-clients` and closed.
    public var maximumClientsPerUser = 64
    /// Slots of `maximumClients` that only privileged peers (root, `privilegedUIDs`, members of
    /// `privilegedGroup`) may take: however many users crowd in, root can still `get` and `lock`.
    /// At most half of `maximumClients` is held back, whatever this says.
    public var reservedClients = 64

    /// The reserve in effect: ``reservedClients``, at most half of ``maximumClients``.
    public var effectiveReserve: Int { min(reservedClients, maximumClients / 2) }
    /// A connection that is not subscribed and sends nothing for this long, in seconds, is told
    /// `idle-timeout` and closed (a subscriber is never idle).
    public var idleTimeout = 60.0
    /// Outbound bytes a connection may have queued (replies it does not read); beyond this it is
    /// dropped without a reply, since it would not read one. Events never count here: they are
    /// coalesced above the high-water mark.
    public var maximumOutputBytes = 64 * 1024
    /// Sustained request lines per second per connection (blank lines count too), and the burst
    /// allowed above it. With `maximumLineLength` this also bounds the bytes a client may send.
    public var requestsPerSecond = 20.0
    public var requestBurst = 40.0
    /// Outbound bytes buffered per connection before it counts as slow; from then on only the
    /// newest event is kept for it until it drains below the low mark.
    public var writeBufferHighWaterMark = 64 * 1024
    public var writeBufferLowWaterMark = 16 * 1024
    /// The server's name and version, sent in `hello`.
    public var serverVersion = "orientationd 0.1.0"

    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// The id of a group given by name or number, `nil` when there is none (for validating
    /// `socket-group` and `privileged-group` where they are written).
    public static func groupID(named name: String) -> UInt32? {
        PrivilegePolicy.groupID(named: name)
    }
}
