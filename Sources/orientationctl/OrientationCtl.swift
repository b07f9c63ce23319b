import ArgumentParser
import Glibc

/// `orientationctl`: the command-line client of orientationd, and the tool to replay and study
/// recorded sensor logs.
/// Its `main` is called by the `orientationctl` executable and by the multi-call binary.
struct OrientationCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orientationctl",
        abstract: "Talk to orientationd, and study orientation detection: replay logs, simulate motions, import data.",
        subcommands: [Monitor.self, MonitorSensor.self, Get.self, Follow.self, Lock.self, Unlock.self, Replay.self, Evaluate.self, Plot.self, Simulate.self, Import.self, Parameters.self, Calibrate.self]
    )

    /// Run as `monitor-sensor` (a link the install makes), this is `orientationctl
    /// monitor-sensor`: scripts written for iio-sensor-proxy call it by that name.
    static func main() async {
        let invokedAs = CommandLine.arguments.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 }
        if invokedAs == "monitor-sensor" {
            await MonitorSensor.main(Array(CommandLine.arguments.dropFirst()))
        } else {
            await main(nil)
        }
    }
}
