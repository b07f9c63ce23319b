import Foundation
import Testing

/// Issue 21, item 8: evaluate says what each number means where it prints it, counts scenarios
/// as scenarios, and reconciles `--scenarios` with `simulate --check`.
@Suite struct EvaluateExplainsTests {
    @Test func excusedEventsAndNegativeLatenciesAreExplained() throws {
        let result = try CommandRunner.run(["evaluate", "data/oxford-step-counter/samsung-dario-purse-1.log", "data/oxford-step-counter/samsung-carmelo-armband-1.log"])
        #expect(result.status == 0, "\(result.stderr)")
        let purse = try #require(result.lines.first { $0.hasPrefix("data/oxford-step-counter/samsung-dario-purse-1.log: ") })
        #expect(purse.contains(" 0 spurious (3 excused); "), "the excused are counted where the spurious are: \(purse)")
        let armband = try #require(result.lines.first { $0.contains("armband") })
        #expect(armband.contains("latency median -"), "the reproduction has a negative latency: \(armband)")
        #expect(result.stderr.contains("latency: the event's time minus the truth's change; negative when the detector decided before the smoothed truth"),
                "\(result.stderr)")
        #expect(result.stderr.contains("spurious: events no transition explains; 3 more were excused"), "\(result.stderr)")
        #expect(result.lines.last?.hasPrefix("total (2 logs): ") == true, "\(result.stdout)")
    }

    @Test func scenariosAreCountedAsScenariosAndReconciledWithSimulate() throws {
        let result = try CommandRunner.run(["evaluate", "--scenarios", "data/xio-fusion/handheld.log"])
        #expect(result.status == 0, "\(result.stderr)")
        let total = try #require(result.lines.last)
        #expect(total.range(of: #"^total \(1 log, \d+ scenarios\): "#, options: .regularExpression) != nil, "\(total)")
        // Every scenario scored short of perfect is run against its specification beside it,
        // and the verdict agrees with simulate --check's.
        let lines = result.lines
        var reconciled = 0
        for (index, line) in lines.enumerated() where line.hasPrefix("scenario: ") && !line.contains(" 0 missed, 0 spurious") {
            let verdict = try #require(index + 1 < lines.count ? lines[index + 1] : nil)
            #expect(verdict.hasPrefix("  its specification (simulate): "), "\(line)\n\(verdict)")
            let body = line.dropFirst("scenario: ".count)
            let end = try #require(body.range(of: #": \d+ transitions"#, options: .regularExpression))
            let name = String(body[..<end.lowerBound])
            let check = try CommandRunner.run(["simulate", "--check", name])
            let passes = verdict.contains(": PASS at 50 Hz")
            if passes { #expect(check.stdout.contains(" 0 failed"), "\(name): \(check.stdout)") }
            reconciled += 1
        }
        #expect(reconciled > 0, "the catalog has a scenario the truth rule and the specification judge differently")
        #expect(result.stderr.contains("simulate --check judges each against its own specification"), "\(result.stderr)")
    }
}
