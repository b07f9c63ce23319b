/// `evaluate`'s posture total: how many convertible logs (with their truth) and posture
/// scenarios passed the posture specification's rules, and the latencies after rest over all.
struct PostureTally {
    private(set) var passed = 0
    private(set) var failed = 0
    private(set) var logs = 0
    private(set) var scenarios = 0
    private(set) var latencies: [Double] = []

    var judged: Int { passed + failed }

    /// Counts a judged verdict (a log's or, with `scenario`, a posture scenario's).
    mutating func add(_ verdict: PostureVerdict, scenario: Bool) {
        guard verdict.judged else { return }
        if verdict.failures.isEmpty { passed += 1 } else { failed += 1 }
        if scenario { scenarios += 1 } else { logs += 1 }
        latencies += verdict.latencies
    }

    /// `posture total (1 log, 9 scenarios): 10 passed, 0 failed; latency median 0.420 s, max
    /// 0.550 s`.
    var line: String {
        var counted: [String] = []
        if logs > 0 { counted.append("\(logs) log\(logs == 1 ? "" : "s")") }
        if scenarios > 0 { counted.append("\(scenarios) scenario\(scenarios == 1 ? "" : "s")") }
        var line = "posture total (\(counted.joined(separator: ", "))): \(passed) passed, \(failed) failed"
        if let median = Self.median(latencies), let max = latencies.max() {
            line += "; latency median \(EventFormat.fixed(median, decimals: 3)) s, max \(EventFormat.fixed(max, decimals: 3)) s"
        }
        return line
    }

    /// The median (the mean of the middle two for an even count), or `nil` for none.
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
