import ArgumentParser

/// `orientationctl`: the command-line client of orientationd, and the tool to replay and study
/// recorded sensor logs.
@main
struct OrientationCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orientationctl",
        abstract: "Talk to orientationd, and study orientation detection: replay logs, simulate motions, import data.",
        subcommands: [Monitor.self, Get.self, Follow.self, Lock.self, Unlock.self, Replay.self, Evaluate.self, Plot.self, Simulate.self, Import.self, Parameters.self]
    )
}
