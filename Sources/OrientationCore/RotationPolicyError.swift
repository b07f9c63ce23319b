/// A rotation policy that cannot work; `description` says why, in terms a user configured.
public enum RotationPolicyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The app's and the window's supported orientations do not overlap (iOS throws
    /// `UIApplicationInvalidInterfaceOrientation` here; a silent no-op would be worse).
    case noCommonOrientation(app: InterfaceOrientationMask, window: InterfaceOrientationMask)
    /// The preferred orientation is not among the supported ones.
    case preferredNotSupported(InterfaceOrientation, supported: InterfaceOrientationMask)
    /// A name in a list of orientations is unknown.
    case unknownOrientationName(String, known: [String])
    /// A list of orientations names none.
    case emptyMask(String)
    /// A per-posture rule (``PostureRotationRules``) that cannot be read.
    case invalidPostureRule(String, reason: String)

    public var description: String {
        switch self {
        case let .noCommonOrientation(app, window):
            return "no interface orientation is supported by both the app (\(app)) and the window (\(window))"
        case let .preferredNotSupported(preferred, supported):
            return "the preferred orientation \(preferred.rawValue) is not supported (supported: \(supported))"
        case let .unknownOrientationName(name, known):
            return "unknown orientation \"\(ControlCharacters.quoted(name))\"; known: \(known.joined(separator: ", "))"
        case let .emptyMask(text):
            return "\"\(ControlCharacters.quoted(text))\" names no orientation"
        case let .invalidPostureRule(text, reason):
            return "posture rule \"\(ControlCharacters.quoted(text))\": \(reason)"
        }
    }
}
