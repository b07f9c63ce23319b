/// The recent history of a slowly changing direction (the slow filter's), thinned to one entry
/// per `window / 16`, and how far it spread over the window: asked only when a decision needs it,
/// so keeping it costs the hot path a few stores per entry and nothing per skipped sample.
struct DirectionHistory: Sendable {
    static let entriesPerWindow = 16
    private static let capacity = entriesPerWindow + 2
    let window: Double
    let interval: Double
    private var directions: [Vector3]
    private var times: [Double]
    private var next = 0
    private var count = 0
    private var lastTime = -Double.infinity
    /// The first entry since the last reset.
    private var firstTime = Double.infinity

    init(window: Double) {
        self.window = window
        interval = window / Double(Self.entriesPerWindow)
        directions = Array(repeating: .zero, count: Self.capacity)
        times = Array(repeating: -.infinity, count: Self.capacity)
    }

    mutating func reset() {
        count = 0
        next = 0
        lastTime = -.infinity
        firstTime = .infinity
    }

    /// Records `direction` (any length; normalised here) at `time` unless the last entry is
    /// younger than the thinning interval.
    @inline(__always)
    mutating func offer(_ direction: Vector3, magnitude: Double, at time: Double) {
        guard time - lastTime >= interval, magnitude > 0 else { return }
        lastTime = time
        if count == 0 { firstTime = time }
        directions[next] = direction * (1 / magnitude)
        times[next] = time
        next = next == Self.capacity - 1 ? 0 : next + 1
        count = min(count + 1, Self.capacity)
    }

    /// True when the history has been kept for (7/8 of) a whole window before `time` and the
    /// entries of the window all lie within a chord of `chord` (the bounding box's diagonal, an
    /// upper bound of the largest angle between two). At low rates the window may hold only two
    /// or three entries; it is judged on those.
    func isSteady(at time: Double, chord: Double) -> Bool {
        guard count > 0, time - firstTime >= window * 7 / 8 else { return false }
        var low = Vector3(.infinity, .infinity, .infinity), high = Vector3(-.infinity, -.infinity, -.infinity)
        var k = next
        for _ in 0..<count {
            k = k == 0 ? Self.capacity - 1 : k - 1
            let t = times[k]
            if t < time - window { break }
            let u = directions[k]
            low = Vector3(min(low.x, u.x), min(low.y, u.y), min(low.z, u.z))
            high = Vector3(max(high.x, u.x), max(high.y, u.y), max(high.z, u.z))
        }
        let d = high - low
        return d.lengthSquared < chord * chord
    }
}
