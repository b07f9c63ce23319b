import Foundation
import Testing

/// data/jaume-i-tug-pocket/ (issue 41): each log is what its README's import command makes of the
/// bundled CSV, the rate being the file's own row rate (its millisecond times repeat), so the
/// provenance stays true.
@Suite struct BundledPocketDataTests {
    static let folder = "data/jaume-i-tug-pocket/"
    static let subjects = (1...12).map { String(format: "s%02d", $0) }

    /// `(rows − 1) / (last time − first time)`, times in column 7 in milliseconds, to 0.01 Hz.
    static func rowRate(_ csv: String) throws -> String {
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").dropFirst()
        let times = lines.compactMap { line in line.split(separator: ",").dropFirst(6).first.flatMap { Double($0) } }
        let first = try #require(times.first), last = try #require(times.last)
        return String(format: "%.2f", Double(times.count - 1) / ((last - first) / 1000))
    }

    @Test(arguments: subjects)
    func theLogIsWhatTheReadmeCommandMakesOfTheBundledCSV(_ subject: String) throws {
        let root = CommandRunner.repositoryRoot.path + "/"
        let name = "\(subject)-01-phone"
        let csv = root + Self.folder + "raw/\(name).csv"
        let rate = try Self.rowRate(csv)
        let executions = try String(contentsOfFile: root + Self.folder + "raw/executions_info.csv", encoding: .utf8)
        let row = try #require(executions.split(separator: "\n").first { $0.hasPrefix("\(subject)_01,") })
        let pocket = String(row.split(separator: ",")[1])
        let output = try CommandRunner.temporaryFile("imported.log", contents: "")
        let result = try CommandRunner.run([
            "import", csv, "-o", output, "--header-lines", "1", "--rate", rate,
            "--accel-columns", "1,2,3", "--gyro-columns", "4,5,6", "--proper-acceleration",
            "--meta", "device=Android phone (model not named in the source repository; accelerometer and gyroscope)",
            "--meta", "sample-rate=\(rate)",
            "--meta", "activity=timed up-and-go: seated, stand up, walk 3 m, turn, walk back, turn, sit down; the phone in a trouser pocket (\(pocket), the source's orientation code)",
            "--meta", "licence=CC BY 4.0, from the sp-sw-har-dataset of Universitat Jaume I (Matey-Sanz, Casteleyn, Granell); see LICENSE.md beside this file",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let imported = try Data(contentsOf: URL(fileURLWithPath: output))
        let bundled = try Data(contentsOf: URL(fileURLWithPath: root + Self.folder + name + ".log"))
        #expect(imported == bundled, "\(name).log is not what the README's command makes of raw/\(name).csv")
    }
}
