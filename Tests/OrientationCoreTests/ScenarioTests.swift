import MotionSynthesis
import OrientationCore
import Testing

/// The detector's specification (docs/DETECTOR.md): every scenario of ``ScenarioCatalog`` at 10,
/// 50 and 100 Hz, with and without a gyroscope, must give exactly the expected events, with no
/// flicker, and (from 50 Hz) each deliberate turn within 300 ms of the device coming to rest.
@Suite struct ScenarioTests {
    static let rates: [Double] = [10, 50, 100]

    @Test("accelerometer only", arguments: ScenarioCatalog.all, rates)
    func accelerometerOnly(scenario: Scenario, rate: Double) throws {
        let run = try ScenarioRun(scenario, rate: rate, gyroscope: false)
        #expect(run.failures.isEmpty, "\(scenario.name) @ \(rate) Hz: \(run.failures.joined(separator: "; "))")
    }

    @Test("with gyroscope", arguments: ScenarioCatalog.all, rates)
    func withGyroscope(scenario: Scenario, rate: Double) throws {
        let run = try ScenarioRun(scenario, rate: rate, gyroscope: true)
        #expect(run.failures.isEmpty, "\(scenario.name) @ \(rate) Hz + gyro: \(run.failures.joined(separator: "; "))")
    }
}
