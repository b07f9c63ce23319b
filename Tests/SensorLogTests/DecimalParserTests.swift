@testable import SensorLog
import Testing

private func randomDecimal(_ rng: inout SplitMix64) -> String {
    var s = ""
    switch rng.next() % 3 {
    case 0: s += "-"
    case 1: if rng.next() % 4 == 0 { s += "+" }
    default: break
    }
    let digitRanges = [0...3, 0...8, 0...17, 0...25, 15...40]
    let range = digitRanges[Int(rng.next() % UInt64(digitRanges.count))]
    var intDigits = Int.random(in: range, using: &rng)
    var fracDigits = Int.random(in: range, using: &rng)
    if rng.next() % 5 == 0 { fracDigits = 0 }
    if intDigits == 0 && fracDigits == 0 { intDigits = 1 }
    for i in 0..<intDigits {
        // leading zeros sometimes; zero runs sometimes (tests truncation of zero tails)
        let zero = (i == 0 && rng.next() % 6 == 0) || rng.next() % 4 == 0
        s += String(zero ? 0 : rng.next() % 10)
    }
    if fracDigits > 0 {
        s += "."
        for _ in 0..<fracDigits { s += String(rng.next() % 4 == 0 ? 0 : rng.next() % 10) }
    }
    switch rng.next() % 4 {
    case 0: s += "e\(Int.random(in: -30...30, using: &rng))"
    case 1: s += (rng.next() % 2 == 0 ? "E+" : "e") + String(Int.random(in: 0...340, using: &rng))
    case 2: s += "e-\(Int.random(in: 0...340, using: &rng))"
    default: break
    }
    return s
}

@Test func fastParserMatchesStandardLibraryBitForBit() {
    var rng = SplitMix64(seed: 0x5EED)
    var mismatches: [String] = []
    for _ in 0..<20_000 {
        let text = randomDecimal(&rng)
        guard let expected = Double(text) else {
            Issue.record("Double(\"\(text)\") is nil")
            continue
        }
        let got = DecimalParser.parse(Array(text.utf8))
        if got?.bitPattern != expected.bitPattern { mismatches.append(text) }
    }
    #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(5))")
}

@Test(arguments: [
    ("0", 0.0), ("-0", -0.0), ("+0.000", 0.0), ("-0.0e5", -0.0), (".5", 0.5), ("-.25", -0.25), ("1e3", 1000),
    ("9.81", 9.81), ("-9.790", -9.79), ("0.000001", 1e-6), ("1E-3", 0.001), ("12345678901234567890", 12345678901234567168),
    ("0.1000000000000000055511151231257827", 0.1), ("4.9e-324", Double.leastNonzeroMagnitude), ("1e-400", 0), ("1e400", .infinity),
    ("-1e400", -.infinity), ("00000000000000000000000001.5", 1.5), ("9007199254740993", 9007199254740992),
    ("1e0000000000000000000000001", 10), ("123456789012345678901234567890e-30", 0.12345678901234568),
])
func parsesExamples(text: String, value: Double) {
    #expect(DecimalParser.parse(Array(text.utf8))?.bitPattern == value.bitPattern)
}

@Test(arguments: ["", "+", "-", ".", "1.", "-.", ".e1", "e5", "1e", "1e+", "1.5.", "0x10", " 1", "1 ", "1,5", "nan", "inf",
                  "1_000", "١"])
func rejectsNonNumbers(text: String) {
    #expect(DecimalParser.parse(Array(text.utf8)) == nil)
}
