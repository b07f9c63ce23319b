@testable import OrientationCore
import Testing

/// The steadiness measure behind `steady-angle`/`steady-window`.
@Suite struct DirectionHistoryTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let rate: Double
        /// Degrees per second the direction turns at (about the x axis).
        let turnRate: Double
        let duration: Double
        let steady: Bool
        var description: String { name }
    }

    static let cases: [Case] = [
        .init(name: "constant, 100 Hz", rate: 100, turnRate: 0, duration: 1, steady: true),
        .init(name: "constant, 10 Hz", rate: 10, turnRate: 0, duration: 1, steady: true),
        .init(name: "constant, 1 kHz", rate: 1000, turnRate: 0, duration: 1, steady: true),
        .init(name: "not yet a whole window", rate: 100, turnRate: 0, duration: 0.2, steady: false),
        .init(name: "turning 40°/s: 10° per 0.25 s", rate: 100, turnRate: 40, duration: 1, steady: true),
        .init(name: "turning 80°/s: 20° per 0.25 s", rate: 100, turnRate: 80, duration: 1, steady: false),
        .init(name: "turning 80°/s at 10 Hz", rate: 10, turnRate: 80, duration: 1, steady: false),
    ]

    @Test(arguments: cases)
    func steadiness(_ row: Case) {
        var history = DirectionHistory(window: 0.25)
        let chord = 2 * _sin(15.0 / 2 * .pi / 180)  // 15°
        var t = 0.0
        while t <= row.duration + 1e-9 {
            let a = row.turnRate * t * .pi / 180
            let v = Vector3(0, -9.8 * _cos(a), -9.8 * _sin(a))
            history.offer(v, magnitude: v.length, at: t)
            t += 1 / row.rate
        }
        #expect(history.isSteady(at: t - 1 / row.rate, chord: chord) == row.steady)
    }

    @Test func resetForgetsTheWindow() {
        var history = DirectionHistory(window: 0.25)
        for k in 0...100 { history.offer(Vector3(0, -9.8, 0), magnitude: 9.8, at: Double(k) / 100) }
        #expect(history.isSteady(at: 1, chord: 0.1))
        history.reset()
        history.offer(Vector3(0, -9.8, 0), magnitude: 9.8, at: 1.01)
        #expect(!history.isSteady(at: 1.01, chord: 0.1))
    }
}
