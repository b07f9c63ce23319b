import CLinuxInput
import Glibc

/// Reads `struct input_event`s from an evdev node: one decoder for every evdev reader (the
/// accelerometer's ``EvdevReadLoop``, the proximity switch's ``EvdevProximitySwitch``; issue 29).
///
/// The struct is laid out as this architecture's kernel lays it out (24 bytes on 64-bit Linux,
/// 16 on 32-bit) and decoded by the C target in host order, never a hard-coded layout; a read
/// may end in the middle of an event, whose rest comes with the next read.
struct InputEventDecoder {
    struct Event: Equatable {
        /// The event's time stamp in seconds (on the clock the node was asked for).
        var seconds: Double
        var type: UInt16
        var code: UInt16
        var value: Int32
    }

    enum Outcome: Equatable {
        /// Whole events read (possibly none, when only part of one came).
        case events([Event])
        /// Nothing to read now (`EAGAIN`, `EINTR`).
        case nothing
        /// The node went away (a read of 0 bytes).
        case endOfFile
        /// `read(2)` failed with this errno.
        case failed(Int32)
    }

    private let size = Int(od_input_event_size())
    private var pending: [UInt8] = []
    private var chunk: [UInt8]

    init() {
        chunk = [UInt8](repeating: 0, count: Int(od_input_event_size()) * 64)
    }

    /// One non-blocking `read(2)` of up to 64 events from `fd`.
    mutating func read(_ fd: Int32) -> Outcome {
        let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if count < 0 { return errno == EAGAIN || errno == EINTR ? .nothing : .failed(errno) }
        if count == 0 { return .endOfFile }
        pending += chunk[..<count]
        return .events(decodePending())
    }

    /// The whole events in `bytes` (after what earlier calls left), for a caller that read them.
    mutating func decode(_ bytes: [UInt8]) -> [Event] {
        pending += bytes
        return decodePending()
    }

    private mutating func decodePending() -> [Event] {
        var events: [Event] = []
        var offset = 0
        while pending.count - offset >= size {
            var event = Event(seconds: 0, type: 0, code: 0, value: 0)
            pending.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                od_input_event_decode(base + offset, &event.seconds, &event.type, &event.code, &event.value)
            }
            events.append(event)
            offset += size
        }
        pending.removeFirst(offset)
        return events
    }
}
