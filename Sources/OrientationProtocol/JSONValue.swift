/// A JSON value: what one line of the wire protocol holds.
///
/// Objects keep their members in order (duplicate names are rejected by ``JSONReader``).
/// Numbers are `Double`s, as in JavaScript. A number whose text a `Double` would change (an
/// integer id of 2⁵³ or more, `1.50`, `1e2`) is read as ``exactNumber(_:)`` so that it is
/// written back exactly as received: a reply echoes a request's id verbatim (docs/PROTOCOL.md).
/// Equality and hashing compare numbers by value, whichever case holds them.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    /// A number kept as its JSON text (a valid JSON number literal), written back unchanged.
    case exactNumber(String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case (.number, .number), (.number, .exactNumber), (.exactNumber, .number), (.exactNumber, .exactNumber):
            lhs.numberValue == rhs.numberValue
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(b)
        case .number, .exactNumber: hasher.combine(numberValue)
        case .string(let s): hasher.combine(s)
        case .array(let a): hasher.combine(a)
        case .object(let o):
            for (key, value) in o {
                hasher.combine(key)
                hasher.combine(value)
            }
        }
    }

    /// The member called `key` of an object, or `nil`.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var numberValue: Double? {
        switch self {
        case .number(let n): n
        case .exactNumber(let text): Double(text)
        default: nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number, .exactNumber: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
