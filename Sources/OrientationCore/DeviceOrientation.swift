/// The physical orientation of the device, in iOS's `UIDeviceOrientation` vocabulary.
///
/// The raw value is the wire name used in the socket protocol, the log tools and the
/// configuration (docs/ARCHITECTURE.md §3). Landscape names follow iOS: `landscapeLeft` means the
/// device was turned counter-clockwise, so its right edge is up.
public enum DeviceOrientation: String, CaseIterable, Hashable, Sendable, Codable {
    /// No decision yet, or no sensor.
    case unknown = "unknown"
    /// Upright, home edge down: gravity ≈ (0, −g, 0).
    case portrait = "portrait"
    /// Upside down: gravity ≈ (0, +g, 0).
    case portraitUpsideDown = "portrait-upside-down"
    /// Turned counter-clockwise, right edge up: gravity ≈ (−g, 0, 0).
    case landscapeLeft = "landscape-left"
    /// Turned clockwise, left edge up: gravity ≈ (+g, 0, 0).
    case landscapeRight = "landscape-right"
    /// Lying flat, screen up: gravity ≈ (0, 0, −g).
    case faceUp = "face-up"
    /// Lying flat, screen down: gravity ≈ (0, 0, +g).
    case faceDown = "face-down"

    /// Parses a wire name (exact, lower-case, as in ``rawValue``).
    @inlinable
    public init?(wireName: some StringProtocol) {
        self.init(rawValue: String(wireName))
    }

    /// The wire name.
    @inlinable
    public var wireName: String { rawValue }

    /// `portrait` or `portraitUpsideDown` (as `UIDeviceOrientation.isPortrait`).
    public var isPortrait: Bool { self == .portrait || self == .portraitUpsideDown }

    /// `landscapeLeft` or `landscapeRight` (as `UIDeviceOrientation.isLandscape`).
    public var isLandscape: Bool { self == .landscapeLeft || self == .landscapeRight }

    /// `faceUp` or `faceDown` (as `UIDeviceOrientation.isFlat`).
    public var isFlat: Bool { self == .faceUp || self == .faceDown }

    /// True for the four orientations an interface can take (as
    /// `UIDeviceOrientation.isValidInterfaceOrientation`): portrait, upside down and both
    /// landscapes. Flat and unknown never change an interface's orientation.
    public var isValidInterfaceOrientation: Bool { isPortrait || isLandscape }

    /// The four in-plane orientations in the order of increasing counter-clockwise turn:
    /// index `k` is the device turned counter-clockwise by `k × 90°` from portrait.
    public static let inPlane: [DeviceOrientation] = [.portrait, .landscapeLeft, .portraitUpsideDown, .landscapeRight]

    /// For an in-plane orientation, its counter-clockwise turn from portrait in quarter turns
    /// (0 portrait, 1 landscape-left, 2 upside down, 3 landscape-right); `nil` otherwise.
    public var quarterTurns: Int? {
        switch self {
        case .portrait: 0
        case .landscapeLeft: 1
        case .portraitUpsideDown: 2
        case .landscapeRight: 3
        default: nil
        }
    }

    /// The ideal gravity direction (unit vector) in the canonical frame, `nil` for `unknown`.
    public var gravityDirection: Vector3? {
        switch self {
        case .portrait: Vector3(0, -1, 0)
        case .portraitUpsideDown: Vector3(0, 1, 0)
        case .landscapeLeft: Vector3(-1, 0, 0)
        case .landscapeRight: Vector3(1, 0, 0)
        case .faceUp: Vector3(0, 0, -1)
        case .faceDown: Vector3(0, 0, 1)
        case .unknown: nil
        }
    }
}

extension DeviceOrientation: CustomStringConvertible {
    public var description: String { rawValue }
}
