import OrientationCore
import PostureCore
import PostureSynthesis
import Testing

/// The posture detector's specification (docs/DETECTOR.md, "The posture detector"): every
/// scenario of ``PostureScenarioCatalog`` at 10, 25, 50 and 100 Hz must give exactly the expected
/// events, none before its move began, each within ``PostureScenarioRun/latencyBudget`` of the
/// machine coming to rest, and the hold reasons the scenario is about.
@Suite struct PostureScenarioTests {
    static let rates: [Double] = [10, 25, 50, 100]

    @Test("posture scenarios", arguments: PostureScenarioCatalog.all, rates)
    func scenario(scenario: PostureScenario, rate: Double) throws {
        let run = try PostureScenarioRun(scenario, rate: rate)
        #expect(run.failures.isEmpty, "\(scenario.name) @ \(rate) Hz: \(run.failures.joined(separator: "; "))")
    }
}
