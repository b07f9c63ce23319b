import ArgumentParser
import OrientationCore

/// `--still-interval`: the rate governor (``SampleRateGovernor``) as the daemon applies it to a
/// polled sensor, so that `replay` and `evaluate` show what the daemon would have published.
struct GovernorOptions: ParsableArguments {
    @Option(name: .customLong("still-interval"),
            help: ArgumentHelp("Seconds between samples while the device lies still and the orientation is settled, as orientationd reads a polled sensor ([sensor] still-interval); 0: every sample.",
                               valueName: "seconds"))
    var stillInterval: Double = SampleRateGovernor.Configuration().stillInterval

    /// The governor's configuration, kept below the detector's `gap-reset` as the daemon keeps it.
    func configuration(detector: OrientationDetector.Configuration) throws -> SampleRateGovernor.Configuration {
        var configuration = SampleRateGovernor.Configuration()
        configuration.stillInterval = stillInterval
        if let problem = configuration.problem() {
            throw ValidationError("--\(problem.key) \(problem.message)")
        }
        return configuration.limited(gapReset: detector.gapReset)
    }
}
