import ConfigFileFormat
import OrientationCore

/// The `[posture]` section of orientationd's configuration file (issue 30): the posture
/// detector's parameters (``PostureDetector/Configuration/parameters``, the same names) and the
/// opt-in virtual tablet-mode switch.
///
/// Read by the daemon (at start and at every reload) and by `orientationctl replay`, `evaluate`,
/// `plot` and `simulate --config`, through ``apply(_:problems:)`` (docs/ARCHITECTURE.md §11).
public struct PostureSettings: Hashable, Sendable, ConfigFileSectionReader {
    /// The configuration-file section.
    public static let configFileSection = "posture"
    /// The key of ``tabletModeSwitch``.
    public static let tabletModeSwitchKey = "tablet-mode-switch"
    /// The key of ``dbusHoldsInLaptop``.
    public static let dbusHoldsInLaptopKey = "dbus-hold-in-laptop"
    /// Every key the section knows: the posture parameters, then the switches.
    public static var keys: [String] { PostureDetector.Configuration.parameters.map(\.name) + [tabletModeSwitchKey, dbusHoldsInLaptopKey] }

    /// The posture detector's parameters (validated by ``apply(_:problems:)``).
    public var detector = PostureDetector.Configuration()
    /// `tablet-mode-switch` (default `false`): offer a virtual `SW_TABLET_MODE` input device
    /// that follows the posture, on a machine without a real one (issue 30, item 3); the daemon's
    /// `TabletModeSwitchKeeper` acts on it.
    public var tabletModeSwitch = false
    /// `dbus-hold-in-laptop` (default `false`): the D-Bus facade's `AccelerometerOrientation`
    /// keeps its value while a convertible is `closed` or a `laptop`, for desktops that rotate
    /// whatever the tablet mode says. Off by default: GNOME and KDE already rotate only in tablet
    /// mode (`SW_TABLET_MODE`).
    public var dbusHoldsInLaptop = false

    /// The defaults.
    public init() {}

    /// Applies the `[posture]` section of `file` on top of these settings, appending every
    /// problem to `problems`, each naming the file and line: an unknown key (with the nearest
    /// known one as "did you mean"), a value of the wrong syntax; then, when every entry was
    /// well formed, the first relation ``PostureDetector/Configuration/validate()`` refuses, on
    /// the line of the entry that set the field it names (or the section's last entry). After a
    /// bad entry relations are not checked: that field kept its default, so the message could
    /// blame a value the file does not hold.
    public mutating func apply(_ file: ConfigFile, problems: inout [ConfigFileError]) {
        let entries = file.entries(in: Self.configFileSection)
        var bad: Set<String> = []
        for entry in entries {
            func problem(_ message: String) {
                problems.append(ConfigFileError(source: file.source, line: entry.line, message: message))
                bad.insert(entry.name)
            }
            if entry.name == Self.tabletModeSwitchKey || entry.name == Self.dbusHoldsInLaptopKey {
                let value: Bool
                switch entry.value {
                case "true", "yes", "1": value = true
                case "false", "no", "0": value = false
                default:
                    problem("\(entry.name): must be true or false, not \"\(ControlCharacters.quoted(entry.value))\"")
                    continue
                }
                if entry.name == Self.tabletModeSwitchKey { tabletModeSwitch = value } else { dbusHoldsInLaptop = value }
                continue
            }
            guard let parameter = PostureDetector.Configuration.parameter(named: entry.name) else {
                let guess = ConfigFile.nearest(entry.name, among: Self.keys).map { "; did you mean '\($0)'?" } ?? ""
                problem("unknown posture parameter \(ControlCharacters.quoted(entry.name))\(guess)")
                continue
            }
            do {
                try parameter.apply(entry.value, to: &detector)
            } catch {
                problem(error.description)
            }
        }
        guard bad.isEmpty else { return }
        do {
            try detector.validate()
        } catch {
            let line = entries.last { $0.name == error.field }?.line ?? entries.last?.line ?? 1
            problems.append(ConfigFileError(source: file.source, line: line, message: error.description))
        }
    }
}
