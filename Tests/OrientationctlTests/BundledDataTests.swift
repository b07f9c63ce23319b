import Foundation
import Testing

/// The recordings under data/ that came from other formats: each is what its README's import
/// command makes of the bundled source file (so the preset and the provenance stay true), and
/// each behaves as a careful user of the recorded device expects.
@Suite struct BundledDataTests {
    struct Recording: Sendable, CustomStringConvertible {
        let log: String, csv: String, activity: String
        /// The states a careful user accepts here, in any order; `portrait` must be among them.
        let acceptable: Set<String>
        var description: String { log }
    }

    static let oxford = "data/oxford-step-counter/"
    static let recordings = [
        Recording(log: oxford + "s6-user1-hand.log", csv: oxford + "raw/s6-user1-hand.csv",
                  activity: "the phone held in the hand (person 1)", acceptable: ["portrait", "face-up"]),
        Recording(log: oxford + "s6-user2-hand.log", csv: oxford + "raw/s6-user2-hand.csv",
                  activity: "the phone held in the hand (person 2)", acceptable: ["portrait", "face-up"]),
        Recording(log: oxford + "s6-user1-frontpocket.log", csv: oxford + "raw/s6-user1-frontpocket.csv",
                  activity: "the phone in a front trouser pocket (person 1)", acceptable: ["portrait"]),
    ]

    /// The import command of data/oxford-step-counter/README.md, byte for byte.
    @Test(arguments: recordings)
    func theLogIsWhatThePresetMakesOfTheBundledCSV(_ recording: Recording) throws {
        let root = CommandRunner.repositoryRoot.path
        let output = try CommandRunner.temporaryFile("imported.log", contents: "")
        let result = try CommandRunner.run([
            "import", "--preset", "oxford-step-counter", root + "/" + recording.csv, "-o", output,
            "--meta", "device=Samsung S6 (an Android phone's accelerometer)", "--meta", "sample-rate=100",
            "--meta", "activity=walking on a hard floor, \(recording.activity)",
            "--meta", "licence=CC BY 4.0, from the Oxford step-counter data set; see LICENSE.md beside this file",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let imported = try Data(contentsOf: URL(fileURLWithPath: output))
        let bundled = try Data(contentsOf: CommandRunner.repositoryRoot.appendingPathComponent(recording.log))
        #expect(imported == bundled, "\(recording.log) is not what the preset makes of \(recording.csv)")
    }

    /// Walking, in the hand or in a pocket: never a landscape or upside-down state, nothing
    /// evaluate calls spurious, no settled stretch missed.
    @Test(arguments: recordings)
    func walkingNeverRotates(_ recording: Recording) throws {
        let replay = try CommandRunner.run(["replay", "--quiet", recording.log])
        #expect(replay.status == 0, "\(replay.stderr)")
        let states = replay.lines.map { String($0.split(separator: " ")[1]) }
        #expect(states.contains("portrait"), "\(replay.stdout)")
        #expect(Set(states).isSubset(of: recording.acceptable), "\(replay.stdout)")
        let evaluate = try CommandRunner.run(["evaluate", recording.log])
        #expect(evaluate.status == 0, "\(evaluate.stderr)")
        #expect(evaluate.lines.first?.contains(" 0 missed, 0 spurious") == true, "\(evaluate.stdout)")
    }
}
