/// Measures how much a direction (the fast-filtered gravity direction) has moved over roughly
/// the last `window` seconds, in O(1) time and memory per sample whatever the sample rate.
///
/// The window is cut into eight bins; each keeps the per-component minimum and maximum of the
/// unit vectors seen in it. The spread is the diagonal of the bounding box over the current bin
/// and the seven before it: a chord length that bounds the largest angle between any two
/// directions in the window from above (for a turn about one axis it is that chord, for a wobble
/// at most √3 times it). Callers compare it with precomputed chords (`2·sin(angle/2)`), so no
/// trigonometry runs per sample.
struct MotionTracker: Sendable {
    static let binCount = 8
    private let binWidth: Double
    private var low: [Vector3]
    private var high: [Vector3]
    /// Earliest sample time in each bin.
    private var earliest: [Double]
    private var current = 0
    private var currentStart = -Double.infinity
    /// Bounding box of the seven older bins, recomputed when the current bin changes.
    private var olderLow = Vector3(.infinity, .infinity, .infinity)
    private var olderHigh = Vector3(-.infinity, -.infinity, -.infinity)
    private var olderEarliest = Double.infinity
    /// When the first direction since the last reset was added.
    private(set) var firstTime = -Double.infinity

    init(window: Double) {
        binWidth = window / Double(Self.binCount)
        low = Array(repeating: Vector3(.infinity, .infinity, .infinity), count: Self.binCount)
        high = Array(repeating: Vector3(-.infinity, -.infinity, -.infinity), count: Self.binCount)
        earliest = Array(repeating: .infinity, count: Self.binCount)
    }

    /// Forgets everything seen.
    mutating func reset() {
        for i in 0..<Self.binCount { clear(i) }
        olderLow = Vector3(.infinity, .infinity, .infinity)
        olderHigh = Vector3(-.infinity, -.infinity, -.infinity)
        olderEarliest = .infinity
        currentStart = -.infinity
        firstTime = -.infinity
    }

    /// True once directions spanning a whole window have been seen since the last reset.
    func hasFullWindow(at time: Double) -> Bool {
        time - firstTime >= binWidth * Double(Self.binCount - 1)
    }

    /// True once directions spanning `duration` have been seen since the last reset.
    func hasSeen(_ duration: Double, at time: Double) -> Bool {
        time - firstTime >= duration
    }

    /// Records unit vector `u` at `time` (non-decreasing between resets); returns the spread
    /// (a chord length, 0…2√3) and the time the window's samples actually cover (0 for a lone
    /// sample). At low sample rates a window holds only two or three samples, so callers that
    /// judge speed divide by `covered`, not by the window's nominal length.
    mutating func add(_ u: Vector3, at time: Double) -> (spread: Double, covered: Double) {
        if !firstTime.isFinite { firstTime = time }
        if time - currentStart >= binWidth { advance(to: time) }
        var l = low[current], h = high[current]
        l = Vector3(min(l.x, u.x), min(l.y, u.y), min(l.z, u.z))
        h = Vector3(max(h.x, u.x), max(h.y, u.y), max(h.z, u.z))
        low[current] = l
        high[current] = h
        if time < earliest[current] { earliest[current] = time }
        let dx = max(h.x, olderHigh.x) - min(l.x, olderLow.x)
        let dy = max(h.y, olderHigh.y) - min(l.y, olderLow.y)
        let dz = max(h.z, olderHigh.z) - min(l.z, olderLow.z)
        let covered = time - min(earliest[current], olderEarliest)
        return ((dx * dx + dy * dy + dz * dz).squareRoot(), covered)
    }

    private mutating func clear(_ i: Int) {
        low[i] = Vector3(.infinity, .infinity, .infinity)
        high[i] = Vector3(-.infinity, -.infinity, -.infinity)
        earliest[i] = .infinity
    }

    private mutating func advance(to time: Double) {
        // In Double first: a gap of 10²¹ s (a log can say so) would trap converting to Int.
        let bins = ((time - currentStart) / binWidth).rounded(.down)
        let elapsed = currentStart.isFinite && bins < Double(Self.binCount) ? max(0, Int(bins)) : Self.binCount
        for _ in 0..<min(elapsed, Self.binCount) {
            current = (current + 1) % Self.binCount
            clear(current)
        }
        currentStart = currentStart.isFinite && elapsed < Self.binCount ? currentStart + Double(elapsed) * binWidth : time
        var l = Vector3(.infinity, .infinity, .infinity), h = Vector3(-.infinity, -.infinity, -.infinity)
        var e = Double.infinity
        for i in 0..<Self.binCount where i != current {
            l = Vector3(min(l.x, low[i].x), min(l.y, low[i].y), min(l.z, low[i].z))
            h = Vector3(max(h.x, high[i].x), max(h.y, high[i].y), max(h.z, high[i].z))
            e = min(e, earliest[i])
        }
        olderLow = l
        olderHigh = h
        olderEarliest = e
    }
}
