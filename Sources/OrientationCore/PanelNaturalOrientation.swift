/// Which way a display panel is long when it sits as made: what "portrait" and "landscape" mean
/// to a client that rotates it (issue 39).
///
/// The daemon's device orientations are the panel's frame (ARCHITECTURE.md §3): `portrait` is the
/// panel as it sits, whatever its shape, as iio-sensor-proxy's `normal`. An iOS app's masks name
/// the shape the user sees, so on a landscape-native panel (a laptop's, most 2-in-1s') the masks
/// must be read a quarter turn round, or `--supported landscape` would turn a laptop that sits
/// normally on its side.
///
/// Contract, for ``landscape``: the panel as it sits is interface `landscape-right` with no
/// rotation; turned a quarter clockwise (its left edge up) it is `portrait`, a quarter
/// counter-clockwise `portrait-upside-down`, upside down `landscape-left`. ``portrait`` changes
/// nothing. ``panelRotation(for:)`` is the clockwise content rotation the panel needs, which is
/// what a compositor is told, whatever the names.
public enum PanelNaturalOrientation: String, CaseIterable, Sendable {
    case portrait
    case landscape

    /// The device orientation a portrait-native panel would report in the same pose (what a
    /// ``RotationPolicy`` takes).
    public func portraitNativeEquivalent(of device: DeviceOrientation) -> DeviceOrientation {
        guard self == .landscape else { return device }
        // A landscape panel as it sits is a portrait panel turned a quarter counter-clockwise.
        switch device {
        case .portrait: return .landscapeLeft
        case .landscapeLeft: return .portraitUpsideDown
        case .portraitUpsideDown: return .landscapeRight
        case .landscapeRight: return .portrait
        case .faceUp, .faceDown, .unknown: return device
        }
    }

    /// The clockwise content rotation, in degrees (0, 90, 180, 270), that shows `interface` on
    /// this panel.
    public func panelRotation(for interface: InterfaceOrientation) -> Int {
        let portraitNative = interface.rotationDegrees
        guard self == .landscape else { return portraitNative }
        return (portraitNative - InterfaceOrientation.landscapeRight.rotationDegrees + 360) % 360
    }

    /// The shape of a mode `width` × `height` pixels, unrotated (a square one counts as landscape).
    public init(width: Int, height: Int) {
        self = height > width ? .portrait : .landscape
    }
}
