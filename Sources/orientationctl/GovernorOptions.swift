import ArgumentParser
import OrientationCore

/// `--still-interval`: the rate governor (``SampleRateGovernor``) as the daemon applies it to a
/// polled (or evdev) sensor, so that `replay` and `evaluate` show what the daemon would have
/// published from one. Off by default: a log holds every sample, as a buffered sensor (a phone,
/// most HID sensor hubs) delivers them, and `orientationd --record` records them.
struct GovernorOptions: ParsableArguments {
    @Option(name: .customLong("still-interval"),
            help: ArgumentHelp("Skip the samples orientationd would not read from a polled sensor: one per this many seconds while the device lies still and the orientation is settled ([sensor] still-interval, 0.5 in orientationd); 0: every sample.",
                               valueName: "seconds"))
    var stillInterval: Double = 0

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
