import Foundation
import TestSupport

/// What a run of `orientationctl` printed.
typealias CommandResult = ProcessResult

enum CommandRunner {
    /// The build products directory (where `swift build` put orientationctl).
    static var productsDirectory: URL {
        // The test bundle lives in the products directory on Linux.
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("orientationctl").deletingLastPathComponent()
    }

    static var executable: URL {
        let candidates = [
            productsDirectory.appendingPathComponent("orientationctl"),
            Bundle.main.bundleURL.appendingPathComponent("orientationctl"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("orientationctl"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Runs the built `orientationctl` binary as a user would (from the repository's root),
    /// capturing its output.
    static func run(_ arguments: [String], stdin: Data? = nil) throws -> CommandResult {
        try launch([executable.path] + arguments, stdin: stdin)
    }

    private static func launch(_ command: [String], stdin: Data? = nil) throws -> CommandResult {
        let result = runProcess(command, directory: repositoryRoot.path, input: stdin.map { Array($0) })
        if result.status == 127 && result.stdout.isEmpty && result.stderr.hasPrefix("cannot start") {
            throw TestError(result.stderr)
        }
        return result
    }

    /// Runs `orientationctl` under GNU time (`/usr/bin/time`, the `time` package): what it
    /// printed and its peak resident set, in KiB (issue 18's memory bounds).
    /// With `addressSpaceBytes`, the command runs under that address-space cap (`prlimit --as`):
    /// an allocation beyond it fails, as on a machine without the memory.
    static func runMeasuringMemory(_ arguments: [String], addressSpaceBytes: Int? = nil) throws -> (result: CommandResult, peakKiB: Int) {
        let report = temporaryDirectory("orientationctl-time") + "/time.txt"
        let cap = addressSpaceBytes.map { ["/usr/bin/prlimit", "--as=\($0)"] } ?? []
        let result = try launch(["/usr/bin/time", "-f", "%M", "-o", report] + cap + [executable.path] + arguments)
        let text = readText(report).split(separator: "\n").last.map(String.init) ?? ""
        guard let peak = Int(text.trimmingCharacters(in: .whitespaces)) else { throw TestError("no peak RSS from /usr/bin/time: \(readText(report))") }
        return (result, peak)
    }

    /// A file in a fresh temporary directory.
    static func temporaryFile(_ name: String, contents: String) throws -> String {
        let path = temporaryDirectory("orientationctl-tests") + "/" + name
        writeText(path, contents)
        return path
    }
}
