import Foundation

/// Runs the built `orientationctl` binary as a user would, capturing its output.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
}

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

    static func run(_ arguments: [String], stdin: Data? = nil) throws -> CommandResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = repositoryRoot
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Drain both pipes concurrently so a large output never blocks the child.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return CommandResult(status: process.terminationStatus,
                             stdout: String(decoding: outData, as: UTF8.self),
                             stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A file in a fresh temporary directory.
    static func temporaryFile(_ name: String, contents: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("orientationctl-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try contents.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }
}
