import OrientationCore
import PostureCore
import PostureSynthesis
import Testing

/// The posture detector's specification (docs/DETECTOR.md, "The posture detector"): every
/// scenario of ``PostureScenarioCatalog`` at 2.5, 5, 10, 20, 50 and 100 Hz (issue 38: a governed
/// reader delivers 2.5 Hz while the posture is settled) must give exactly the expected
/// events, none before its move began, each within ``PostureScenarioRun/latencyBudget`` of the
/// machine coming to rest, and the hold reasons the scenario is about.
@Suite struct PostureScenarioTests {
    static let rates: [Double] = PostureScenarioCatalog.rates + [50, 100]

    @Test("posture scenarios", arguments: PostureScenarioCatalog.all, rates)
    func scenario(scenario: PostureScenario, rate: Double) throws {
        let run = try PostureScenarioRun(scenario, rate: rate)
        #expect(run.failures.isEmpty, "\(scenario.name) @ \(rate) Hz: \(run.failures.joined(separator: "; "))")
    }

    /// Whatever else fails, a machine whose halves are folded back is never called closed, nor
    /// one whose lid switch says open, at any rate (issue 38).
    @Test("never closed while folded back or with the switch open", arguments: PostureScenarioCatalog.recordedStyle, rates)
    func neverClosed(scenario: PostureScenario, rate: Double) throws {
        let run = try PostureScenarioRun(scenario, rate: rate)
        #expect(!run.events.contains { $0.posture == .closed }, "\(scenario.name) @ \(rate) Hz: \(run.events)")
    }

    @Test func theCatalogsMountMatricesAreNotTheIdentity() {
        // The scenarios exercise both sensors' mount matrices (built without try!: a matrix that
        // failed to build would fall back to the identity and hide it).
        #expect(PostureScenarioCatalog.displayMount != .identity)
        #expect(PostureScenarioCatalog.baseMount != .identity)
        #expect(PostureScenarioCatalog.displayMount != PostureScenarioCatalog.baseMount)
    }
}

/// Issue 38, item 3: tent (300°) folded to a tablet between two readings, the display and the
/// base each read once before and once after, at instants of their own. Every phase of the base's
/// readings against the display's and every instant of the fold between them, at a governed
/// reader's 2.5 Hz and at 5 Hz, with and without a lid switch: never `closed`, and a tablet at
/// the end.
@Suite struct QuickFoldTests {
    static func fold(rate: Double, basePhase: Double, offset: Double, lid: Bool) throws -> [PostureEvent] {
        var s = ConvertibleScript(start: .tent())
        s.displayMount = PostureScenarioCatalog.displayMount
        s.baseMount = PostureScenarioCatalog.baseMount
        s.basePhase = basePhase
        s.hold(3 + offset)
        s.move(to: .tabletOnTable, duration: 0.25, handHeld: true)
        s.hold(4)
        let scenario = PostureScenario("quick fold", script: s, expected: [.init(.tent), .init(.tablet)],
                                       lidChanges: lid ? [.init(time: 0, closed: false)] : [])
        return try PostureScenarioRun(scenario, rate: rate).events
    }

    @Test(arguments: [2.5, 5], [false, true])
    func neverClosed(rate: Double, lid: Bool) throws {
        for phase in stride(from: 0.05, through: 0.95, by: 0.1) {
            for k in 0..<10 {
                let offset = Double(k) / 10 / rate
                let events = try Self.fold(rate: rate, basePhase: phase, offset: offset, lid: lid)
                #expect(!events.contains { $0.posture == .closed }, "phase \(phase), offset \(offset): \(events)")
                #expect(events.last?.posture == .tablet, "phase \(phase), offset \(offset): \(events)")
            }
        }
    }
}
