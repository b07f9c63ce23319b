import SensorIIO
import Testing

/// The hardware rate a still buffered accelerometer is slowed to (issue 37).
@Suite struct StillSamplingFrequencyTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let moving: Double
        let batch: Int
        let wait: Double
        let available: String?
        let expected: Double?
        var testDescription: String { "\(moving) Hz, batch \(batch), wait \(wait), \(available ?? "no list")" }
    }

    static let cases: [Case] = [
        // A batch of 5 in 0.4 s: 12.5 Hz, the list's value.
        Case(moving: 100, batch: 5, wait: 0.4, available: "6.25 12.5 25 50 100 200", expected: 12.5),
        // Never below the wanted rate: 10 Hz wanted, 12.5 is the smallest at or above it.
        Case(moving: 100, batch: 4, wait: 0.4, available: "1.5625 3.125 6.25 12.5 25 50 100", expected: 12.5),
        // Nothing lower than the moving rate to go to.
        Case(moving: 100, batch: 5, wait: 0.4, available: "100 200 400", expected: nil),
        Case(moving: 12.5, batch: 5, wait: 0.4, available: "12.5 25", expected: nil),
        // No list, or a range: the wanted rate itself (read back by the reader).
        Case(moving: 100, batch: 5, wait: 0.4, available: nil, expected: 12.5),
        Case(moving: 100, batch: 5, wait: 0.4, available: "[1 1 100]", expected: 12.5),
        // A wait so short that the wanted rate is the moving one: nothing to do.
        Case(moving: 100, batch: 5, wait: 0.05, available: nil, expected: nil),
        Case(moving: 100, batch: 0, wait: 0.4, available: nil, expected: nil),
    ]

    @Test(arguments: cases) func theStillRateIsTheSlowestThatKeepsOneBatchPerWait(_ c: Case) {
        #expect(StillSamplingFrequency.choose(moving: c.moving, batch: c.batch, wait: c.wait, available: c.available) == c.expected)
    }

    @Test func whatADriverReportsIsKeptOnlyBetweenTheWantedAndTheMovingRate() {
        #expect(StillSamplingFrequency.accepts(12.5, moving: 100, batch: 5, wait: 0.4))
        #expect(!StillSamplingFrequency.accepts(100, moving: 100, batch: 5, wait: 0.4), "not lower")
        #expect(!StillSamplingFrequency.accepts(5, moving: 100, batch: 5, wait: 0.4), "a batch would take a second")
        #expect(!StillSamplingFrequency.accepts(.nan, moving: 100, batch: 5, wait: 0.4))
    }
}
