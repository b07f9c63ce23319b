import ArgumentParser

/// `orientationctl`: the command-line client of orientationd, and the tool to replay and study
/// recorded sensor logs.
@main
struct OrientationCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orientationctl",
        abstract: "Study device-orientation detection: replay sensor logs, simulate motions, list detector parameters.",
        subcommands: [Replay.self, Simulate.self, Import.self, Parameters.self]
    )
}
