import Glibc
import OrientationCore
@testable import SensorLog

/// Deterministic PRNG (SplitMix64) so random tests are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A file under /tmp removed when the value is dropped.
final class TemporaryFile {
    let path: String
    init(_ bytes: [UInt8]) {
        var rng = SystemRandomNumberGenerator()
        path = "/tmp/sensorlog-test-\(getpid())-\(rng.next() as UInt64).log"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        precondition(fd >= 0)
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                precondition(n > 0)
                offset += n
            }
        }
        close(fd)
    }
    convenience init(_ text: String) { self.init(Array(text.utf8)) }
    init(emptyPath: Void) {
        var rng = SystemRandomNumberGenerator()
        path = "/tmp/sensorlog-test-\(getpid())-\(rng.next() as UInt64).log"
    }
    deinit { unlink(path) }
}

/// Reads everything; returns the samples before the first error and that error (if any).
func readEverything(_ bytes: [UInt8], name: String = "t.log") -> (samples: [Sample], error: SensorLogError?) {
    var samples: [Sample] = []
    do {
        var reader = try SensorLogReader(bytes: bytes, name: name)
        while let sample = try reader.next() { samples.append(sample) }
        return (samples, nil)
    } catch {
        return (samples, error)
    }
}

func readEverything(path: String, chunkSize: Int) -> (samples: [Sample], error: SensorLogError?) {
    var samples: [Sample] = []
    do {
        var reader = try SensorLogReader(path: path, chunkSize: chunkSize)
        while let sample = try reader.next() { samples.append(sample) }
        return (samples, nil)
    } catch {
        return (samples, error)
    }
}

/// Lines in a buffer as the reader counts them (a last line without newline counts).
func lineCount(_ bytes: [UInt8]) -> Int {
    let newlines = bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    return newlines + (bytes.last.map { $0 != 0x0A ? 1 : 0 } ?? 0)
}
