import OrientationCore

/// What the daemon publishes: the current device orientation and the system rotation lock.
public struct OrientationState: Hashable, Sendable {
    /// The device orientation (`unknown` before the first decision or without a sensor).
    public var orientation: DeviceOrientation
    /// The orientation before the last change.
    public var previous: DeviceOrientation
    /// The sensor timestamp (seconds) of the last change, if any.
    public var time: Double?
    /// Increases by one with every published change (orientation or lock), daemon-wide. A client
    /// that sees it jump knows it was sent only the newest state (coalescing).
    public var seq: UInt64
    /// The system-wide rotation lock: clients keep their interface orientation while it is set.
    public var locked: Bool
    /// The sensor's state and why (`nil`: a server that does not say, or a hub not wired to a
    /// sensor). A change of it alone does not count in `seq`: `seq` counts orientation and lock
    /// changes, which clients act on.
    public var sensor: SensorStatus?

    public init(orientation: DeviceOrientation = .unknown, previous: DeviceOrientation = .unknown,
                time: Double? = nil, seq: UInt64 = 0, locked: Bool = false, sensor: SensorStatus? = nil) {
        self.orientation = orientation
        self.previous = previous
        self.time = time
        self.seq = seq
        self.locked = locked
        self.sensor = sensor
    }

    /// The members every state-carrying message shares, in wire order.
    var members: [(String, JSONValue)] {
        [("orientation", .string(orientation.rawValue)), ("previous", .string(previous.rawValue)),
         ("time", time.map { .number($0) } ?? .null), ("seq", .number(Double(seq))), ("locked", .bool(locked))]
            + (sensor?.members ?? [])
    }

    init(members value: JSONValue) throws(ProtocolError) {
        func orientation(_ name: String) throws(ProtocolError) -> DeviceOrientation {
            guard let text = value[name]?.stringValue, let o = DeviceOrientation(wireName: text) else {
                throw ProtocolError(.invalidMessage, "\(name) must be an orientation name")
            }
            return o
        }
        self.orientation = try orientation("orientation")
        self.previous = try orientation("previous")
        self.time = value["time"]?.numberValue
        // `exactly`: a hostile or broken server's 1e300 must be an error here, not a trap.
        guard let number = value["seq"]?.numberValue, let seq = UInt64(exactly: number) else {
            throw ProtocolError(.invalidMessage, "seq must be a whole number from 0 to 2^64")
        }
        self.seq = seq
        self.locked = value["locked"]?.boolValue ?? false
        self.sensor = SensorStatus(members: value)
    }
}
