/// One request line from a client: `{"op":"subscribe"}`, optionally with an `"id"` (any JSON
/// scalar) that the reply echoes. Unknown members are ignored, so newer clients can add fields.
public struct ClientRequest: Hashable, Sendable {
    /// The operations of protocol v1.
    public enum Op: String, Sendable, CaseIterable {
        /// Start receiving events; the reply carries the current state. Claims the sensor.
        case subscribe
        /// Stop receiving events. Releases the sensor when nobody else listens.
        case unsubscribe
        /// The current state and how old it is, without subscribing.
        case get
        /// Liveness check: `{"type":"pong"}`.
        case ping
        /// Set the system rotation lock (privileged: root or the configured group).
        case lock
        /// Clear the system rotation lock (privileged).
        case unlock
    }

    public var op: Op
    public var id: JSONValue?
    /// What a `subscribe` asks for (`nil`: the orientation only, as before topics existed).
    /// A new `subscribe` replaces the connection's topics; `unsubscribe` ends them all.
    public var topics: [SubscriptionTopic]?

    public init(_ op: Op, id: JSONValue? = nil, topics: [SubscriptionTopic]? = nil) {
        self.op = op
        self.id = id
        self.topics = topics
    }

    /// Parses one line (without its `\n`).
    ///
    /// - Throws: ``ProtocolError`` with code `invalid-json`, `invalid-request` or `unknown-op`;
    ///   `error.id` below recovers the request's id for the error reply when there was one.
    public static func parse(_ line: some Collection<UInt8>) throws(ProtocolError) -> ClientRequest {
        let value: JSONValue
        do {
            value = try JSONReader.parse(line)
        } catch {
            throw ProtocolError(.invalidJSON, "not valid JSON: \(error)")
        }
        guard case .object = value else {
            throw ProtocolError(.invalidRequest, "a request must be a JSON object such as {\"op\":\"subscribe\"}, not \(value.kindName)")
        }
        guard let opValue = value["op"] else {
            throw ProtocolError(.invalidRequest, "a request needs an \"op\" member")
        }
        guard let opName = opValue.stringValue else {
            throw ProtocolError(.invalidRequest, "\"op\" must be a string, not \(opValue.kindName)")
        }
        guard let op = Op(rawValue: opName) else {
            let known = Op.allCases.map(\.rawValue).joined(separator: ", ")
            throw ProtocolError(.unknownOp, "unknown op \"\(String(opName.prefix(64)))\"; known ops: \(known)")
        }
        let id = value["id"]
        if let id, case .object = id { throw ProtocolError(.invalidRequest, "\"id\" must be a string, number, boolean or null") }
        if let id, case .array = id { throw ProtocolError(.invalidRequest, "\"id\" must be a string, number, boolean or null") }
        var topics: [SubscriptionTopic]? = nil
        if op == .subscribe, let list = value["topics"] {
            let known = SubscriptionTopic.offered.map(\.rawValue).joined(separator: ", ")
            guard case .array(let items) = list, !items.isEmpty else {
                throw ProtocolError(.invalidRequest, "\"topics\" must be a non-empty array of topic names (\(known))")
            }
            topics = []
            for item in items {
                guard let name = item.stringValue, let topic = SubscriptionTopic(rawValue: name) else {
                    throw ProtocolError(.invalidRequest, "unknown topic \(item.stringValue.map { "\"\(String($0.prefix(64)))\"" } ?? item.kindName); known topics: \(known)")
                }
                // Defined on the wire but not served by this version (none since issue 30): refused
                // as clearly as an unknown name, so a client never waits for events that cannot come.
                guard SubscriptionTopic.offered.contains(topic) else {
                    throw ProtocolError(.invalidRequest, "topic \"\(name)\" is not served by this server; known topics: \(known)")
                }
                if !topics!.contains(topic) { topics!.append(topic) }
            }
        }
        return ClientRequest(op, id: id, topics: topics)
    }

    /// The id of a line that failed to parse as a request, when it is at least a JSON object
    /// with a scalar id: so an error reply can still be correlated.
    public static func id(ofMalformed line: some Collection<UInt8>) -> JSONValue? {
        guard let value = try? JSONReader.parse(line), let id = value["id"] else { return nil }
        switch id {
        case .object, .array: return nil
        default: return id
        }
    }

    /// The request as a line (without `\n`).
    public var line: String {
        var members: [(String, JSONValue)] = [("op", .string(op.rawValue))]
        if let topics { members.append(("topics", .array(topics.map { .string($0.rawValue) }))) }
        if let id { members.append(("id", id)) }
        return JSONWriter.serialize(.object(members))
    }
}
