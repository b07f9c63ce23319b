/// An input switch's event code (`EV_SW`, linux/input-event-codes.h): which switch of an evdev
/// device ``InputSwitchDiscovery`` looks for in `capabilities/sw` and ``InputSwitchReader``
/// follows. Any code can be made; the ones orientationd uses are named.
public struct InputSwitchCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code (`SW_LID` = 0).
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// `SW_LID`: 1 = the lid is shut.
    public static let lid = InputSwitchCode(rawValue: 0x00)
    /// `SW_TABLET_MODE`: 1 = tablet mode (the keyboard folded away or detached).
    public static let tabletMode = InputSwitchCode(rawValue: 0x01)
    /// `SW_FRONT_PROXIMITY`: 1 = something near the front (a phone at an ear).
    public static let frontProximity = InputSwitchCode(rawValue: 0x0b)

    /// The kernel's name (`SW_LID`), or `SW_0x..` for a code without one here.
    public var description: String {
        switch self {
        case .lid: "SW_LID"
        case .tabletMode: "SW_TABLET_MODE"
        case .frontProximity: "SW_FRONT_PROXIMITY"
        default: "SW_0x" + String(rawValue, radix: 16)
        }
    }
}
