import ArgumentParser
import OrientationCore

/// `orientationctl parameters`: every detector parameter with its default and meaning.
struct Parameters: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the detector's parameters, their defaults (or values after --set) and units."
    )

    @OptionGroup var detector: DetectorOptions

    func run() throws {
        let configuration = try detector.configuration()
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
