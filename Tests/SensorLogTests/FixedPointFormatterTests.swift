@testable import SensorLog
import Testing

@Test(arguments: [
    (0.0, 6, "0.000000"), (-0.0, 5, "0.00000"), (-0.000001, 5, "0.00000"), (-0.000006, 5, "-0.00001"),
    (0.000005, 5, "0.00001"),  // the double is just above 5e-6
    (0.125, 2, "0.13"), (-0.125, 2, "-0.13"), (2.5, 0, "3"), (-2.5, 0, "-3"), (0.375, 2, "0.38"),
    (1e12, 6, "1000000000000.000000"), (-123456789012.5, 5, "-123456789012.50000"),
    (123.456789, 5, "123.45679"), (9.999999, 5, "10.00000"), (-9.999996, 5, "-10.00000"), (0.1, 6, "0.100000"),
    (9.81, 5, "9.81000"), (1e-300, 6, "0.000000"), (Double.leastNonzeroMagnitude, 6, "0.000000"), (0.3, 18, "0.299999999999999989"),
    (.nan, 5, "nan"), (.infinity, 5, "inf"), (-.infinity, 6, "-inf"), (1e20, 6, "1e+20"),
])
func formatsFixedPoint(value: Double, decimals: Int, text: String) {
    #expect(FixedPointFormatter.string(value, decimals: decimals) == text)
}

@Test func formattedValuesAreWithinHalfAUnitAndParseBack() {
    var rng = SplitMix64(seed: 99)
    for _ in 0..<20_000 {
        let magnitude = Double.random(in: -6...12, using: &rng)
        var value = Double.random(in: 1...10, using: &rng)
        for _ in 0..<Int(magnitude.magnitude) { value = magnitude < 0 ? value / 10 : value * 10 }
        if rng.next() % 2 == 0 { value = -value }
        let decimals = rng.next() % 2 == 0 ? 5 : 6
        let text = FixedPointFormatter.string(value, decimals: decimals)
        guard let parsed = Double(text) else {
            Issue.record("unparsable \(text)")
            continue
        }
        let unit = decimals == 5 ? 1e-5 : 1e-6
        // Half a unit, plus the parse rounding of large values.
        #expect((parsed - value).magnitude <= unit / 2 + value.magnitude.ulp, "\(value) -> \(text)")
        #expect(text.utf8.split(separator: UInt8(ascii: ".")).last?.count == decimals)
    }
}
