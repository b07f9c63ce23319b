import CLinuxInput
import Glibc
import OwnerThreads
import SensorDeviceAccess

/// Follows one switch (any `SW_` code) of an evdev node on an owner thread of its own
/// (`od-switch`), issue 30: the lid switch for the posture detector (``lid(node:onChange:onEnd:)``);
/// the proximity switch (``EvdevProximitySwitch``) runs the same loop, ``follow(node:code:unknownInitialState:wakeFD:isStopping:onChange:)``,
/// on its sensor reader's thread. The descriptor is opened, read and closed on that thread
/// alone; only Swift values leave it.
///
/// Contract:
/// - **The state first, then each change.** At open, the state through `EVIOCGSW` (a ``Change``
///   with origin `initial`); a driver or node that does not answer it (a test's PTY) gives no
///   initial change, so the state is unknown until the first event. Then each `EV_SW` event of
///   the code, delivered as it is read (switch events stand alone; a reader need not wait for
///   the frame's `SYN_REPORT`).
/// - **Changes only.** A value equal to the last one delivered is not delivered again.
/// - **Lost events are made good.** After `SYN_DROPPED` (the kernel's buffer for this reader
///   overflowed) events are ignored until the next `SYN_REPORT`, then the state is read again
///   with `EVIOCGSW` and delivered if it changed (origin `resync`), as libevdev does.
/// - **Time** is CLOCK_MONOTONIC seconds, the clock of the accelerometers' samples: the event's
///   own stamp once `EVIOCSCLOCKID` switched the node to that clock, else (a node that refuses
///   it) the time the event was read; the initial and resynced states carry the time they were read.
/// - **The end is reported once**, to `onEnd`: `nil` when stopped, else why (the node could not be
///   opened, went away or failed to read). Nothing retries: the owner opens a new reader on the
///   next udev event.
public final class InputSwitchReader: Sendable {
    /// One delivered state of the switch.
    public struct Change: Sendable, Equatable {
        /// Where the value came from.
        public enum Origin: String, Sendable {
            /// `EVIOCGSW` when the node was opened.
            case initial
            /// An `EV_SW` event.
            case event
            /// `EVIOCGSW` again after the kernel dropped events (`SYN_DROPPED`).
            case resync
        }

        /// The switch's value: on (1) or off (0). For `SW_LID`, on = shut.
        public let isOn: Bool
        /// CLOCK_MONOTONIC seconds (see the type's contract).
        public let time: Double
        public let origin: Origin

        public init(isOn: Bool, time: Double, origin: Origin) {
            self.isOn = isOn
            self.time = time
            self.origin = origin
        }
    }

    /// The node read.
    public let node: String
    /// The switch followed.
    public let code: InputSwitchCode
    private let thread: OwnerThread

    /// A reader of switch `code` on `node`; nothing is opened before ``start()``. `onChange` and
    /// `onEnd` run on the reader's thread and must not block (hand the value on).
    public init(node: String, code: InputSwitchCode, onChange: @escaping @Sendable (Change) -> Void,
                onEnd: @escaping @Sendable (_ failure: String?) -> Void) {
        self.node = node
        self.code = code
        thread = OwnerThread(name: "od-switch") { owner in
            let failure = InputSwitchReader.follow(node: node, code: code, unknownInitialState: nil, wakeFD: owner.wakeFD,
                                                   isStopping: { owner.isStopping }, onChange: onChange)
            onEnd(failure)
        }
    }

    /// A reader of the lid switch (`SW_LID`) on `node` delivering what
    /// `PostureDetector.setLidSwitch(closed:at:)` takes: whether the lid is shut, and when.
    public static func lid(node: String, onChange: @escaping @Sendable (_ closed: Bool, _ time: Double) -> Void,
                           onEnd: @escaping @Sendable (_ failure: String?) -> Void) -> InputSwitchReader {
        InputSwitchReader(node: node, code: .lid, onChange: { onChange($0.isOn, $0.time) }, onEnd: onEnd)
    }

    /// Starts the reader's thread. Call once.
    public func start() throws(SensorError) {
        try thread.startReader()
    }

    /// Stops the reader and waits (without blocking a thread) until its thread has closed the
    /// node and reported the end. Idempotent.
    public func stop() async {
        await thread.stop()
    }

    /// Reads switch `code` of `node` until `isStopping()` (checked whenever `wakeFD`, the owner
    /// thread's wake-up descriptor, becomes readable), delivering changes as the type's contract
    /// says; where the state cannot be read at open, `unknownInitialState` is delivered instead
    /// when given. Returns why it ended, or `nil` when stopped.
    package static func follow(node: String, code: InputSwitchCode, unknownInitialState: Bool?, wakeFD: Int32, isStopping: () -> Bool,
                       onChange: (Change) -> Void) -> String? {
        let fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return "cannot open \(node): \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        let stampedMonotonic = od_input_set_clock(fd, CLOCK_MONOTONIC) == 0
        var last: Bool? = nil
        func deliver(_ isOn: Bool, _ time: Double, _ origin: Change.Origin) {
            guard isOn != last else { return }
            last = isOn
            onChange(Change(isOn: isOn, time: time, origin: origin))
        }
        if let state = state(fd, code) {
            deliver(state, OwnerThread.monotonic(), .initial)
        } else if let unknownInitialState {
            deliver(unknownInitialState, OwnerThread.monotonic(), .initial)
        }
        var pollers = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        var decoder = InputEventDecoder()
        var dropping = false
        while !isStopping() {
            guard poll(&pollers, 2, -1) > 0 else { continue }
            if pollers[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return "\(node) went away" }
            guard pollers[0].revents & Int16(POLLIN) != 0 else { continue }
            switch decoder.read(fd) {
            case .nothing: continue
            case .endOfFile: return "\(node) went away"
            case .failed(let error): return "cannot read \(node): \(String(cString: strerror(error)))"
            case .events(let events):
                for event in events {
                    if event.type == eventSync {
                        if event.code == syncDropped {
                            dropping = true
                        } else if event.code == syncReport, dropping {
                            dropping = false
                            if let state = state(fd, code) { deliver(state, OwnerThread.monotonic(), .resync) }
                        }
                    } else if !dropping, event.type == eventSwitch, Int(event.code) == code.rawValue {
                        deliver(event.value != 0, stampedMonotonic ? event.seconds : OwnerThread.monotonic(), .event)
                    }
                }
            }
        }
        return nil
    }

    /// The switch's state through `EVIOCGSW`, or `nil` when the node does not answer it.
    static func state(_ fd: Int32, _ code: InputSwitchCode) -> Bool? {
        var bits = [UInt8](repeating: 0, count: 8)  // the kernel's switch bitmap: one long (SW_MAX = 0x10)
        guard od_input_switch_states(fd, &bits, UInt32(bits.count)) >= 0, code.rawValue / 8 < bits.count else { return nil }
        return bits[code.rawValue / 8] & (1 << UInt8(code.rawValue % 8)) != 0
    }

    /// `EV_SYN`, `EV_SW`, `SYN_REPORT`, `SYN_DROPPED` (linux/input-event-codes.h).
    private static let eventSync: UInt16 = 0x00
    private static let eventSwitch: UInt16 = 0x05
    private static let syncReport: UInt16 = 0
    private static let syncDropped: UInt16 = 3
}
