/// A detector configuration that cannot work, naming the field by its parameter name.
///
/// `description` reads `dead-band: must be at least 0 and below 90 degrees, not 95.0`; a caller
/// that read the value from a file prefixes the file and line.
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The parameter name, as in ``OrientationDetector/Configuration/parameters``.
    public var field: String
    /// What is wrong, as a sentence fragment after the field name.
    public var message: String
    /// The other fields of a relation (`still-angle` must be below `swing-angle`: `related` is
    /// `["swing-angle"]`); empty for a field wrong on its own.
    public var related: [String]

    public init(field: String, message: String, related: [String] = []) {
        self.field = field
        self.message = message
        self.related = related
    }

    public var description: String {
        message.hasPrefix("(") ? "\(field) \(message)" : "\(field): \(message)"
    }
}

extension ConfigurationError {
    /// Throws unless `value` is finite and above zero: the check every configuration's
    /// durations, time constants and rates share.
    public static func requirePositive(_ value: Double, _ field: String) throws(ConfigurationError) {
        guard value.isFinite, value > 0 else { throw ConfigurationError(field: field, message: "must be a positive number, not \(value)") }
    }

    /// Throws unless `value` is finite and zero or more.
    public static func requireNonNegative(_ value: Double, _ field: String) throws(ConfigurationError) {
        guard value.isFinite, value >= 0 else { throw ConfigurationError(field: field, message: "must be zero or more, not \(value)") }
    }

    /// Throws unless `value` is an angle in degrees, at least 0 and below `limit`.
    public static func requireAngle(_ value: Double, _ field: String, below limit: Double) throws(ConfigurationError) {
        guard value.isFinite, value >= 0, value < limit else {
            throw ConfigurationError(field: field, message: "must be at least 0 and below \(Int(limit)) degrees, not \(value)")
        }
    }
}
