/// How the two halves of a convertible (2-in-1) sit, from the hinge angle between them and the
/// way the display hangs (docs/ARCHITECTURE.md §11, docs/DETECTOR.md "Posture").
///
/// The raw values are the wire and log spelling (lower case, one word), the same as
/// ``DeviceOrientation``'s.
public enum Posture: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// Not known: no trustworthy hinge angle yet, or the halves lie together and neither the
    /// path the hinge took nor a lid switch told whether the lid is shut (0°) or folded all the
    /// way back (360°).
    case unknown
    /// Lid shut on the keyboard: hinge near 0°.
    case closed
    /// Opened as a notebook: hinge between closed and flat (about 110° in use).
    case laptop
    /// Opened out flat: hinge near 180°.
    case flat
    /// Folded past flat and standing on both edges, hinge on top (an inverted V): the display
    /// hangs upside down with respect to its hinge edge.
    case tent
    /// Folded past flat with the base lying keyboard down and the display standing on its
    /// hinge edge, screen out.
    case stand
    /// Folded all the way back: hinge near 360°.
    case tablet

    public var description: String { rawValue }

    /// Whether a desktop should treat this posture as tablet mode (`SW_TABLET_MODE` 1): the
    /// keyboard is folded away or out of reach. `nil` for ``unknown`` (no claim either way).
    public var isTabletMode: Bool? {
        switch self {
        case .unknown: nil
        case .closed, .laptop, .flat: false
        case .tent, .stand, .tablet: true
        }
    }
}
