import CLibIIO
import Glibc
import OrientationCore
import OwnerThreads
import SensorDeviceAccess
import SensorPipeline

/// Reads one IIO device on a dedicated thread and yields samples in the canonical frame.
///
/// Contract: the libiio context, device, channels and buffer are created, used and destroyed
/// inside ``IIOReadLoop/run(_:)`` on the reader's own thread; nothing but `Sample` values and errors leave it.
/// ``stop()`` asks the thread to finish, wakes it (a refill is cancelled, a poll interval cut
/// short) and awaits its end without blocking a thread, so when it returns the buffer is
/// disabled (`buffer/enable` back to 0) and the device closed. Values are
/// `(raw + offset) × scale` (per-axis scale where the driver has it), converted from the scan
/// format by libiio's own `iio_channel_convert` (sign, shift, endianness), then `M · value`.
final class IIOReader: Sendable {
    let plan: IIOReadPlan
    private let thread: OwnerThread

    /// Samples go to `delivery`: its consumer on the reader thread, or its stream.
    init(plan: IIOReadPlan, clocks: SystemClocks = .system, delivery: SampleDelivery) {
        self.plan = plan
        let reading = IIOReadLoop(plan: plan, clocks: clocks, delivery: delivery)
        thread = OwnerThread(name: "od-iio-reader") { owner in reading.run(owner) }
    }

    func start() throws(SensorError) {
        try thread.startReader()
    }

    /// Stops the thread and awaits its end (the sensor is closed when this returns).
    func stop() async {
        await thread.stop()
    }

    /// Asks the thread to stop without waiting (for `deinit`).
    func requestStop() {
        thread.requestStop()
    }
}
