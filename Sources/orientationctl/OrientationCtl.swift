import ArgumentParser
import Glibc
import OrientationProtocol

/// `orientationctl`: the command-line client of orientationd, and the tool to replay and study
/// recorded sensor logs.
/// Its `main` is called by the `orientationctl` executable and by the multi-call binary.
struct OrientationCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orientationctl",
        abstract: "Talk to orientationd, and study orientation detection: replay logs, simulate motions, import data.",
        version: "orientationctl \(OrientationProtocol.softwareVersion)",
        subcommands: [Monitor.self, MonitorSensor.self, Get.self, Follow.self, Lock.self, Unlock.self, Replay.self, Evaluate.self, Plot.self, Simulate.self, Import.self, Parameters.self, Calibrate.self]
    )

    /// Run as `monitor-sensor` (a link the install makes), this is `orientationctl
    /// monitor-sensor`: scripts written for iio-sensor-proxy call it by that name.
    static func main() async {
        let invokedAs = CommandLine.arguments.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 }
        if invokedAs == "monitor-sensor" {
            await MonitorSensor.main(Array(CommandLine.arguments.dropFirst()))
        } else {
            await run(Array(CommandLine.arguments.dropFirst()))
        }
    }

    /// ArgumentParser's own `main`, except that a `ValidationError` thrown by a subcommand's
    /// `run()` ends with that subcommand's usage, as one thrown while parsing does (issue 21:
    /// it ended with the top-level usage, the list of every subcommand).
    static func run(_ arguments: [String]) async {
        var command: any ParsableCommand
        do {
            command = try await asyncParseAsRoot(arguments)
        } catch {
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ValidationError {
            let subcommand = type(of: command)
            printError("Error: \(error.message)")
            printError("Usage: \(usageString(for: subcommand))")
            printError("  See 'orientationctl \(subcommand._commandName) --help' for more information.")
            exit(withError: ExitCode.validationFailure)
        } catch {
            exit(withError: error)
        }
    }
}
