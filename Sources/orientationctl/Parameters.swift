import ArgumentParser
import ConfigFileFormat
import OrientationCore
import PostureCore

/// `orientationctl parameters`: every detector parameter with its default and meaning.
struct Parameters: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the detector's parameters, their defaults (or values after --set) and units.",
        discussion: """
        --posture lists a convertible's posture parameters instead (the [posture] section: \
        their defaults, or the values of --config's), dbus-hold-in-laptop and tablet-mode-switch.
        """
    )

    @Flag(help: "List the posture detector's parameters (the [posture] section) instead.")
    var posture = false

    @OptionGroup var detector: DetectorOptions

    func run() throws {
        let (configuration, postureSettings) = try detector.configurations()
        if posture {
            let parameters = PostureDetector.Configuration.parameters
            let width = max(parameters.map(\.name.count).max() ?? 0, PostureSettings.tabletModeSwitchKey.count)
            for parameter in parameters {
                let value = parameter.value(in: postureSettings.detector) + " " + parameter.unit
                print("\(parameter.name.padding(to: width))  \(value.padding(to: 14))  \(parameter.summary)")
            }
            print("\(PostureSettings.dbusHoldsInLaptopKey.padding(to: width))  \("\(postureSettings.dbusHoldsInLaptop)".padding(to: 14))  "
                  + "D-Bus AccelerometerOrientation keeps its value while closed or a laptop")
            print("\(PostureSettings.tabletModeSwitchKey.padding(to: width))  \("\(postureSettings.tabletModeSwitch)".padding(to: 14))  "
                  + "a virtual SW_TABLET_MODE switch following the posture, where the machine has none")
            return
        }
        let width = OrientationDetector.Configuration.parameters.map(\.name.count).max() ?? 0
        for parameter in OrientationDetector.Configuration.parameters {
            let value = parameter.value(in: configuration) + " " + parameter.unit
            let name = parameter.name.padding(to: width)
            print("\(name)  \(value.padding(to: 14))  \(parameter.summary)")
        }
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
