/// The orientation of an interface (what `UIInterfaceOrientation` means on iOS), as opposed to
/// the device's physical orientation.
///
/// UIKit's mapping, which this follows: turning the *device* counter-clockwise
/// (`DeviceOrientation.landscapeLeft`, right edge up) puts the *interface* in `landscapeRight`,
/// and vice versa. The raw values are the names used on the command line and in configuration.
public enum InterfaceOrientation: String, CaseIterable, Hashable, Sendable {
    case portrait = "portrait"
    case portraitUpsideDown = "portrait-upside-down"
    case landscapeLeft = "landscape-left"
    case landscapeRight = "landscape-right"

    /// The interface orientation that keeps content upright for a device orientation, or `nil`
    /// for face-up, face-down and unknown (which never change an interface).
    public init?(device: DeviceOrientation) {
        switch device {
        case .portrait: self = .portrait
        case .portraitUpsideDown: self = .portraitUpsideDown
        case .landscapeLeft: self = .landscapeRight
        case .landscapeRight: self = .landscapeLeft
        case .faceUp, .faceDown, .unknown: return nil
        }
    }

    /// The device orientation this interface orientation is upright in.
    public var deviceOrientation: DeviceOrientation {
        switch self {
        case .portrait: .portrait
        case .portraitUpsideDown: .portraitUpsideDown
        case .landscapeRight: .landscapeLeft
        case .landscapeLeft: .landscapeRight
        }
    }

    /// How far content must be rotated **clockwise** on the panel, in degrees: portrait 0,
    /// landscape-right (device turned counter-clockwise) 90, upside down 180, landscape-left 270.
    /// Wayland's `wl_output` transforms count counter-clockwise, so `transform-90` there is 270
    /// here; X11's xrandr `--rotate left` is 270 here (see the README's examples).
    public var rotationDegrees: Int {
        switch self {
        case .portrait: 0
        case .landscapeRight: 90
        case .portraitUpsideDown: 180
        case .landscapeLeft: 270
        }
    }

    /// The mask containing only this orientation.
    public var mask: InterfaceOrientationMask {
        switch self {
        case .portrait: .portrait
        case .portraitUpsideDown: .portraitUpsideDown
        case .landscapeLeft: .landscapeLeft
        case .landscapeRight: .landscapeRight
        }
    }
}
