import ArgumentParser
import OrientationCore

/// `--set name=value` options that override detector parameters, shared by every command that
/// runs a detector.
struct DetectorOptions: ParsableArguments {
    @Option(name: [.customLong("set"), .customShort("s")],
            help: ArgumentHelp("Override a detector parameter, e.g. --set settle-time=0.2 (repeatable; `orientationctl parameters` lists them).",
                               valueName: "name=value"))
    var assignments: [String] = []

    /// The default configuration with every `--set` applied, validated.
    func configuration() throws -> OrientationDetector.Configuration {
        var configuration = OrientationDetector.Configuration()
        var pairs: [(name: String, value: String)] = []
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "=") else {
                throw ValidationError("--set expects name=value, got \"\(assignment)\"")
            }
            pairs.append((String(assignment[..<equals]).trimmingBlanks(), String(assignment[assignment.index(after: equals)...])))
        }
        do {
            try configuration.apply(pairs)
        } catch {
            throw ValidationError("--set \(error)")
        }
        return configuration
    }
}

extension StringProtocol {
    func trimmingBlanks() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}
