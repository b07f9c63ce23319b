import OrientationCore
@testable import SensorLog
import Testing

private let alphabet = Array("0123456789,,,,..--+eE\n\n\n\r# \tnaifxyz:".utf8)

private func randomBuffer(_ rng: inout SplitMix64) -> [UInt8] {
    let count = Int(rng.next() % 400)
    var bytes: [UInt8] = []
    if rng.next() % 2 == 0 {
        bytes += Array("# orientationd-log v1\n".utf8)
        if rng.next() % 2 == 0 { bytes += Array("time,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n".utf8) }
    }
    for _ in 0..<count {
        if rng.next() % 8 == 0 {
            bytes.append(UInt8(truncatingIfNeeded: rng.next()))
        } else {
            bytes.append(alphabet[Int(rng.next() % UInt64(alphabet.count))])
        }
    }
    return bytes
}

private func validLog(_ rng: inout SplitMix64) -> [UInt8] {
    var text = "# orientationd-log v1\n# device: fuzz\n# sample-rate: 100\ntime,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n"
    for i in 0..<30 {
        text += "\(Double(i) * 0.01),\(Double(Int(rng.next() % 2000)) / 100 - 10),-9.8,0.31"
        text += i % 4 == 0 ? ",,,\n" : ",0.001,0.002,-0.01\n"
    }
    return Array(text.utf8)
}

private func mutate(_ bytes: inout [UInt8], _ rng: inout SplitMix64) {
    for _ in 0...(rng.next() % 5) {
        guard !bytes.isEmpty else { return }
        let at = Int(rng.next() % UInt64(bytes.count))
        switch rng.next() % 5 {
        case 0: bytes[at] = UInt8(truncatingIfNeeded: rng.next())
        case 1: bytes[at] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
        case 2: bytes.removeSubrange(at..<min(bytes.count, at + Int(rng.next() % 20)))
        case 3: bytes.insert(contentsOf: (0..<(rng.next() % 10)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }, at: at)
        default: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 40)], at: at)
        }
    }
}

/// Drives a reader to the end, checking each outcome; returns the number of calls made.
@discardableResult
private func exercise(_ bytes: [UInt8], open: () throws(SensorLogError) -> SensorLogReader) -> Int {
    let lines = lineCount(bytes)
    var reader: SensorLogReader
    do {
        reader = try open()
    } catch {
        if let line = error.line { #expect(line >= 1 && line <= lines, "\(error)") }
        return 0
    }
    var calls = 0
    while calls <= lines + 1 {
        calls += 1
        do {
            guard let sample = try reader.next() else { return calls }
            #expect(sample.time.isFinite)
        } catch {
            #expect(error.line != nil && error.line! >= 1 && error.line! <= lines, "\(error)")
        }
    }
    Issue.record("reader did not reach the end after \(calls) calls for \(lines) lines")
    return calls
}

@Test func randomBytesNeverCrashTheReader() {
    var rng = SplitMix64(seed: 1234)
    for _ in 0..<3_000 {
        let bytes = randomBuffer(&rng)
        exercise(bytes) { () throws(SensorLogError) in try SensorLogReader(bytes: bytes, name: "fuzz") }
    }
}

@Test func mutatedLogsNeverCrashTheReader() {
    var rng = SplitMix64(seed: 5678)
    for _ in 0..<3_000 {
        var bytes = validLog(&rng)
        mutate(&bytes, &rng)
        exercise(bytes) { () throws(SensorLogError) in try SensorLogReader(bytes: bytes, name: "fuzz") }
    }
}

@Test func fileReadingWithTinyChunksMatchesInMemoryReading() {
    var rng = SplitMix64(seed: 91011)
    for round in 0..<60 {
        var bytes = validLog(&rng)
        if round % 2 == 1 { mutate(&bytes, &rng) }
        let file = TemporaryFile(bytes)
        let expected = readEverything(bytes, name: file.path)
        for chunkSize in [1, 2, 3, 5, 7, 13, 64, 4096] {
            let got = readEverything(path: file.path, chunkSize: chunkSize)
            #expect(got.error == expected.error)
            #expect(got.samples.count == expected.samples.count)
            #expect(zip(got.samples, expected.samples).allSatisfy { $0.time == $1.time && $0.acceleration == $1.acceleration })
        }
    }
}
