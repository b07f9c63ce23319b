/// A set of supported interface orientations (iOS's `UIInterfaceOrientationMask`).
public struct InterfaceOrientationMask: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let portrait = InterfaceOrientationMask(rawValue: 1 << 0)
    public static let portraitUpsideDown = InterfaceOrientationMask(rawValue: 1 << 1)
    public static let landscapeLeft = InterfaceOrientationMask(rawValue: 1 << 2)
    public static let landscapeRight = InterfaceOrientationMask(rawValue: 1 << 3)
    public static let landscape: InterfaceOrientationMask = [.landscapeLeft, .landscapeRight]
    public static let all: InterfaceOrientationMask = [.portrait, .portraitUpsideDown, .landscape]
    /// iPhone's default.
    public static let allButUpsideDown: InterfaceOrientationMask = [.portrait, .landscape]

    /// Names accepted by ``init(parsing:)`` besides the four orientation names.
    public static let groupNames: [(String, InterfaceOrientationMask)] = [
        ("landscape", .landscape), ("all", .all), ("all-but-upside-down", .allButUpsideDown),
    ]

    /// Parses a comma-separated list of interface orientation names and group names, e.g.
    /// `portrait,landscape` or `all-but-upside-down`.
    public init(parsing text: String) throws(RotationPolicyError) {
        var mask: InterfaceOrientationMask = []
        for part in text.split(separator: ",") {
            let name = part.trimmingBlanks()
            if let orientation = InterfaceOrientation(rawValue: name) {
                mask.insert(orientation.mask)
            } else if let group = Self.groupNames.first(where: { $0.0 == name }) {
                mask.formUnion(group.1)
            } else {
                let known = InterfaceOrientation.allCases.map(\.rawValue) + Self.groupNames.map(\.0)
                throw RotationPolicyError.unknownOrientationName(name, known: known)
            }
        }
        guard !mask.isEmpty else { throw RotationPolicyError.emptyMask(text) }
        self = mask
    }

    /// The orientations in the mask, in a fixed order (portrait, landscape-right, landscape-left,
    /// upside down: iOS's order of preference for a first orientation).
    public var orientations: [InterfaceOrientation] {
        [.portrait, .landscapeRight, .landscapeLeft, .portraitUpsideDown].filter { contains($0.mask) }
    }

    public func contains(_ orientation: InterfaceOrientation) -> Bool { contains(orientation.mask) }

    public var description: String {
        isEmpty ? "(none)" : orientations.map(\.rawValue).joined(separator: ",")
    }
}
