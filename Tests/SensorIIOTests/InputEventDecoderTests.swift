@testable import SensorIIO
@testable import SensorInput
import Testing

/// The one `struct input_event` decoder of every evdev reader (issue 29): events split across
/// reads at any byte come out whole and in order.
@Suite struct InputEventDecoderTests {
    /// One event as this (64-bit) kernel lays it out: a timeval of two 64-bit fields, type, code, value.
    static func event(seconds: Int64, microseconds: Int64, type: UInt16, code: UInt16, value: Int32) -> [UInt8] {
        withUnsafeBytes(of: seconds.littleEndian, Array.init) + withUnsafeBytes(of: microseconds.littleEndian, Array.init)
            + withUnsafeBytes(of: type.littleEndian, Array.init) + withUnsafeBytes(of: code.littleEndian, Array.init)
            + withUnsafeBytes(of: value.littleEndian, Array.init)
    }

    static let report = event(seconds: 100, microseconds: 250_000, type: 3, code: 0, value: -256)
        + event(seconds: 100, microseconds: 250_000, type: 3, code: 1, value: 7)
        + event(seconds: 100, microseconds: 250_000, type: 0, code: 0, value: 0)

    @Test(arguments: [0, 1, 10, 23, 24, 25, 47, 48, 71, 72])
    func eventsSplitAnywhereComeOutWhole(split: Int) {
        #expect(MemoryLayout<Int>.size == 8, "the bytes are written for a 64-bit timeval")
        var decoder = InputEventDecoder()
        let events = decoder.decode(Array(Self.report[..<split])) + decoder.decode(Array(Self.report[split...]))
        #expect(events == [
            .init(seconds: 100.25, type: 3, code: 0, value: -256),
            .init(seconds: 100.25, type: 3, code: 1, value: 7),
            .init(seconds: 100.25, type: 0, code: 0, value: 0),
        ])
    }
}
