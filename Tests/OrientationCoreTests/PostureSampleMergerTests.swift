import OrientationCore
import PostureCore
import Testing

/// Issue 30: the two accelerometers' readings, delivered by two reader threads in batches, reach
/// the posture detector in time order.
@Suite struct PostureSampleMergerTests {
    static func sample(_ location: PostureSample.Location, _ time: Double) -> PostureSample {
        PostureSample(time: time, location: location, acceleration: Vector3(0, 0, 9.8))
    }

    static func label(_ samples: [PostureSample]) -> [String] {
        samples.map { "\($0.location == .display ? "d" : "b")\(Int(($0.time * 100).rounded()))" }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var pushes: [(PostureSample.Location, Double)]
        var expected: [String]
        var heldAtEnd: Int
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "batches of five from each, interleaved", pushes:
                [(.base, -0.005), (.display, 0.00), (.display, 0.01), (.display, 0.02), (.base, 0.005), (.base, 0.015), (.display, 0.03),
                 (.base, 0.025), (.base, 0.035)],
            expected: ["b-1", "d0", "b1", "d1", "b2", "d2", "b3", "d3"], heldAtEnd: 1),
        Row(name: "one sensor never heard from holds nothing back", pushes:
                [(.display, 0.0), (.display, 0.2), (.display, 0.6), (.display, 0.8)],
            expected: ["d0", "d20", "d60", "d80"], heldAtEnd: 0),
        Row(name: "one sensor silent: the other goes out at most the lag late", pushes:
                [(.base, 0.0), (.display, 0.1), (.display, 0.3), (.display, 0.7), (.display, 0.9)],
            expected: ["b0", "d10", "d30"], heldAtEnd: 2),
        Row(name: "a reading older than what went out goes out at once", pushes:
                [(.display, 0.1), (.base, 0.2), (.base, 0.05)],
            expected: ["d10", "b5"], heldAtEnd: 1),
    ]

    @Test(arguments: rows)
    func releasesInTimeOrder(_ row: Row) {
        var merger = PostureSampleMerger(maximumLag: 0.5)
        var out: [PostureSample] = []
        for (location, time) in row.pushes { out += merger.push(Self.sample(location, time)) }
        #expect(Self.label(out) == row.expected)
        #expect(merger.heldCount == row.heldAtEnd)
        let times = out.map(\.time)
        if row.name.hasPrefix("batches") { #expect(times == times.sorted()) }
    }

    @Test func holdsAtMostItsCapacity() {
        var merger = PostureSampleMerger(maximumLag: 1000, capacity: 8)
        var out: [PostureSample] = []
        out += merger.push(Self.sample(.base, 0))
        for k in 1...20 { out += merger.push(Self.sample(.display, Double(k))) }
        #expect(merger.heldCount == 8)
        #expect(Self.label(out).prefix(2) == ["b0", "d100"])
        #expect(Self.label(merger.flush()).count == 8 && merger.heldCount == 0)
    }
}
