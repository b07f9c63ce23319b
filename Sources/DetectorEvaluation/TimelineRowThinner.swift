import OrientationCore

/// Keeps, of a stream of ``TimelinePlot/Row``s, only those that one drawing (a width and a time
/// range known before the rows arrive) can show: `orientationctl plot` of a 10-million-sample log
/// then holds a few rows per pixel column instead of one per sample (issue 18, item 4).
///
/// Contract: ``TimelinePlot/svg(width:from:to:)`` for that drawing is byte-identical with the
/// kept rows and with all of them. Per pixel column (the drawing's own `x`), it keeps the first
/// row; the first row with a finite tilt and a finite fast magnitude, and the first rows of the
/// column's lowest and highest of each (the polylines keep each column's extremes, in order); the
/// first row whose in-plane angle is drawn; the column's last row; and every row whose gate,
/// motion, steadiness, candidate, pending or published orientation differs from the row before
/// (the bands and their hover times are exact). Rows outside the range are dropped.
struct TimelineRowThinner {
    private let t0, t1, plotWidth: Double
    private var column = Int.min
    /// The rows of the current column worth keeping, by their position in the stream.
    private var keep: [Int: TimelinePlot.Row] = [:]
    private var sequence = 0
    private var previous: TimelinePlot.Row?
    private var tilt = Extremes(), magnitude = Extremes()
    private var angleDrawn = false
    private var last: (Int, TimelinePlot.Row)?
    private(set) var rows: [TimelinePlot.Row] = []

    /// For the drawing `TimelinePlot.svg(width:from:to:)` would make of a recording whose
    /// accepted samples span `span` (in the log's clock); `nil` when that drawing is not
    /// possible (``TimelinePlot/svg(width:from:to:)`` will say why, from all the rows).
    init?(span: ClosedRange<Double>, width: Int, from: Double?, to: Double?) {
        let origin = span.lowerBound
        let range = 0...(span.upperBound - origin)
        guard range.lowerBound < range.upperBound, width >= 400, width <= 100_000,
              from.map({ $0.isFinite && range.contains($0) }) ?? true, to.map({ $0.isFinite && range.contains($0) }) ?? true else { return nil }
        // The same expressions as svg(width:from:to:), so that columns agree to the last bit.
        let start = from ?? range.lowerBound, end = to ?? range.upperBound
        guard start < end else { return nil }
        t0 = origin + start
        t1 = origin + end
        plotWidth = Double(width) - TimelinePlot.left - TimelinePlot.right
    }

    /// The first finite value of one column, and its lowest and highest, each where it first
    /// occurs.
    private struct Extremes {
        typealias Row = TimelinePlot.Row
        var first: (Int, Row)?
        var low: (Double, Int, Row)?
        var high: (Double, Int, Row)?

        mutating func add(_ value: Double, at index: Int, _ row: Row) {
            guard value.isFinite else { return }
            if first == nil { first = (index, row) }
            if low == nil || value < low!.0 { low = (value, index, row) }
            if high == nil || value > high!.0 { high = (value, index, row) }
        }

        var rows: [(Int, Row)] { [first, low.map { ($0.1, $0.2) }, high.map { ($0.1, $0.2) }].compactMap { $0 } }
    }

    mutating func add(_ row: TimelinePlot.Row) {
        guard row.time >= t0 && row.time <= t1 else { return }
        let index = sequence
        sequence += 1
        let c = Int(TimelinePlot.Canvas.x(row.time, t0: t0, t1: t1, plotWidth: plotWidth) - TimelinePlot.left)
        if c != column {
            flush()
            column = c
            keep[index] = row
        }
        if let previous, !Self.sameStates(previous, row) { keep[index] = row }
        previous = row
        tilt.add(row.tilt, at: index, row)
        magnitude.add(row.fastMagnitude, at: index, row)
        if !angleDrawn, row.angle.isFinite, abs(row.tilt) < 80 {
            angleDrawn = true
            keep[index] = row
        }
        last = (index, row)
    }

    /// The kept rows, in order.
    mutating func finish() -> [TimelinePlot.Row] {
        flush()
        return rows
    }

    /// Ends the current column: its kept rows, in stream order, join ``rows``.
    private mutating func flush() {
        for (index, row) in tilt.rows + magnitude.rows + (last.map { [$0] } ?? []) { keep[index] = row }
        rows += keep.keys.sorted().map { keep[$0]! }
        keep = [:]
        tilt = Extremes()
        magnitude = Extremes()
        angleDrawn = false
        last = nil
    }

    private static func sameStates(_ a: TimelinePlot.Row, _ b: TimelinePlot.Row) -> Bool {
        a.gate == b.gate && a.motion == b.motion && a.steady == b.steady && a.candidate == b.candidate
            && a.pending == b.pending && a.published == b.published
    }
}
