import OrientationCore

/// Which edge of the display the hinge runs along, in the display's canonical frame
/// (docs/ARCHITECTURE.md §3: x toward the right edge, y toward the top edge, z out of the screen).
///
/// Nearly every convertible has its hinge along the bottom edge of the panel's natural
/// orientation, which is also ChromeOS's convention (the hinge is the x axis). A panel whose
/// natural orientation is portrait while the machine opens like a notebook (some small
/// convertibles) has it along the left or right edge instead.
public enum HingeEdge: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case bottom, left, right, top

    /// The unit vector in the display's plane pointing from the screen's centre toward the hinge.
    @inlinable
    public var towardHinge: Vector3 {
        switch self {
        case .bottom: Vector3(0, -1, 0)
        case .top: Vector3(0, 1, 0)
        case .left: Vector3(-1, 0, 0)
        case .right: Vector3(1, 0, 0)
        }
    }

    /// The hinge axis, `towardHinge × ẑ`, oriented so that opening the lid by θ turns the
    /// display's axes by +θ about it (right-handed) relative to the base's; gravity as the
    /// display reads it therefore turns by −θ. `(−1, 0, 0)` for ``bottom`` (opened to 90°, the
    /// display's top edge, +y, points where the base's −z does: up, out of the keyboard).
    @inlinable
    public var axis: Vector3 { towardHinge.cross(Vector3(0, 0, 1)) }

    public var description: String { rawValue }
}
