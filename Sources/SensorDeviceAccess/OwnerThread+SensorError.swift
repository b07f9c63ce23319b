import OwnerThreads

extension OwnerThread {
    /// ``OwnerThread/start()`` for a sensor's reader: a thread that cannot start is
    /// ``SensorError/cannotStartThread(errno:)``, as every reader reports it.
    package func startReader() throws(SensorError) {
        do throws(OwnerThread.StartError) {
            try start()
        } catch {
            throw .cannotStartThread(errno: error.errno)
        }
    }
}
