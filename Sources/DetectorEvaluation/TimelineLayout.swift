/// Where everything of a ``TimelinePlot`` goes: the margins, and each lane's place, plain-word
/// name and one-line legend (issue 21: "|a| fast filter", "candidate" and "pending" were
/// jargon, "steady" an unlabelled grey bar, and tilt and angle shared one lane with the traces
/// over its guide labels).
///
/// Every lane has a slot at least ``nameBlockHeight`` tall: its name and legend sit in the left
/// margin beside it, and the scale labels of the tilt, direction and acceleration lanes in the
/// right margin, so no trace ever runs over a label. The total height at the default header is
/// ``height``; a wrapped header moves everything down by its extra height.
enum TimelineLayout {
    /// A lane: its slot (name and legend beside it), and the bar or plot area inside the slot.
    struct Lane {
        var id: String
        var name: String
        var legend: String
        /// The slot's top and height (the name block is laid out in it).
        var top: Double
        var height: Double
        /// The drawn area inside the slot.
        var barTop: Double
        var barHeight: Double

        init(_ id: String, _ name: String, _ legend: String, top: Double, height: Double, bar: Double? = nil) {
            self.id = id
            self.name = name
            self.legend = legend
            self.top = top
            self.height = height
            barHeight = bar ?? height
            barTop = top + (height - barHeight) / 2
        }

        var bottom: Double { top + height }
    }

    static let left = 236.0, right = 78.0
    static let titleTop = 20.0
    /// Where the lanes start below the default header.
    static let lanesTop = 92.0
    /// A lane name (11 px) over its legend (9 px).
    static let nameBlockHeight = 22.0
    /// The legend's font, for the width estimate that keeps it inside the margin.
    static let legendCharWidth = 5.1

    static let tilt = Lane("lane-tilt", "screen tilt", "0° upright, +90° face up, −90° face down",
                           top: lanesTop, height: 76)
    static let direction = Lane("lane-direction", "which edge is up", "the edge pointing up; gaps: lying flat",
                                top: 178, height: 76)
    static let acceleration = Lane("lane-magnitude", "shaking", "grey |a|; red: off green band, turns wait",
                                   top: 266, height: 60)
    static let movement = Lane("lane-motion", "movement", "blue still, yellow moving, red swinging", top: 336, height: 22, bar: 16)
    static let steadiness = Lane("lane-steady", "settled", "grey: steady enough to decide while moving", top: 360, height: 22, bar: 8)
    static let reading = Lane("lane-candidate", "reading says", "the orientation the sensor points to now", top: 384, height: 22, bar: 16)
    static let waiting = Lane("lane-pending", "waiting to publish", "a new orientation serving its settle time",
                              top: 408, height: 22, bar: 16)
    /// Event labels take rows above the published lane, each this far apart.
    static let eventLabelRows = 3, eventLabelStep = 9.0
    static let published = Lane("lane-published", "published", "what clients are told; dashes mark events",
                                top: 464, height: 28)
    static let truth = Lane("lane-truth", "truth (evaluate)", "evaluate's label, from the log itself", top: 502, height: 22)
    static let axisTop = 536.0
    static let height = 582.0

    /// Every lane, top to bottom.
    static let lanes = [tilt, direction, acceleration, movement, steadiness, reading, waiting, published, truth]
}
