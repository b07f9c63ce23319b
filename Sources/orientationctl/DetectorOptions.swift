import ArgumentParser
import SensorLog
import OrientationCore
import PostureCore
import ConfigFileFormat

/// `--set name=value` options that override detector parameters, shared by every command that
/// runs a detector, and `--config` (its `[detector]` and `[posture]` sections).
struct DetectorOptions: ParsableArguments {
    @Option(name: [.customLong("set"), .customShort("s")],
            help: ArgumentHelp("Override a detector parameter, e.g. --set settle-time=0.2 (repeatable; `orientationctl parameters` lists them).",
                               valueName: "name=value"))
    var assignments: [String] = []

    @Option(name: .customLong("config"),
            help: ArgumentHelp("Read detector parameters from the [detector] section of a configuration file, and a convertible's from [posture] (--set wins).",
                               valueName: "file"))
    var configFile: String?

    /// The defaults, then the configuration file, then every `--set`, validated.
    func configuration() throws -> OrientationDetector.Configuration {
        try configurations().detector
    }

    /// The orientation detector's configuration (as ``configuration()``) and the posture
    /// settings of the file's `[posture]` section (defaults without `--config`). Every problem
    /// of either section is reported, in file order, whichever the command uses: the file is
    /// wrong either way.
    func configurations() throws -> (detector: OrientationDetector.Configuration, posture: PostureSettings) {
        var configuration = OrientationDetector.Configuration()
        var posture = PostureSettings()
        if let configFile {
            // Every problem the file has for a detector, in file order (the daemon's sections'
            // own settings are the daemon's to check: orientationd --check-config).
            let bytes: [UInt8]
            // A file that cannot be read, or holds mistakes, is bad input (exit status 1), not a
            // mistake on the command line: no usage text (issue 27).
            do { bytes = try ConfigurationFileReader.read(configFile) } catch { throw CleanExit.message("\(error)", failing: true) }
            var problems: [ConfigFileError] = []
            let file = ConfigFile(parsing: String(decoding: bytes, as: UTF8.self), source: configFile,
                                  knownSections: ConfigFile.orientationdSections, problems: &problems)
            configuration.apply(file, problems: &problems)
            posture.apply(file, problems: &problems)
            if !problems.isEmpty { throw CleanExit.message(ConfigFileErrors(problems).description, failing: true) }
        }
        do {
            try configuration.apply(assignments: assignments)
        } catch {
            throw ValidationError("--set \(error)")
        }
        return (configuration, posture)
    }
}
