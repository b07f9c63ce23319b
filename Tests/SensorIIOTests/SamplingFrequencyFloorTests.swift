import SensorIIO
import Testing

/// Issue 16, item 4: a polled accelerometer below 10 Hz is raised, from its own list.
@Suite struct SamplingFrequencyFloorTests {
    static let rows: [(current: Double?, available: String?, chosen: Double?)] = [
        (5.2, "1.5625 3.125 6.25 12.5 25 50", 12.5),  // decimals: the smallest at or above 10
        (1, "1 10 100", 10),
        (5.2, "3 6 12 25 50 100 200 400 800 1600", 12),  // LSM303DA's list, low to high
        (5.2, "800.000000 400.000000 200.000000 100.000000 50.000000 12.500000 6.250000 1.560000", 12.5),  // mma8452's, high to low
        (1, "1 2 5 20 50\n", 20),                    // integers, the kernel's trailing newline
        (1, nil, 10),                                // no list: 10 itself
        (1, "", 10),
        (1, "[1 1 100]", 10),                        // a range is no list
        (1, "1 2 5", 5),                             // nothing reaches 10: the best there is
        (5, "1 2 5", nil),                           // …unless that is no better
        (10, "1 10 100", nil),                       // fast enough: left alone
        (100, "12.5 25", nil),
        (nil, "12.5 25", nil),                       // unreadable: left alone
        (1, "1 fast 100", 10),                       // a list that does not parse counts as none
    ]

    @Test(arguments: rows.indices)
    func choosesFromTheDriversList(_ index: Int) {
        let row = Self.rows[index]
        #expect(SamplingFrequencyFloor.choose(current: row.current, available: row.available) == row.chosen, "\(row)")
    }

    @Test func writesIntegersWithoutAFraction() {
        #expect(SamplingFrequencyFloor.text(10) == "10")
        #expect(SamplingFrequencyFloor.text(12.5) == "12.5")
        #expect(SamplingFrequencyFloor.text(1.5625) == "1.5625")
    }
}
