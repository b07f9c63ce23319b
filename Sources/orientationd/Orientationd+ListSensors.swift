import OwnerThreads
import SensorIIO
import SensorInput

/// `orientationd --list-sensors`: what discovery finds and what the daemon would use, and why.
extension Orientationd {
    static func printSensors(_ source: DiscoveringAccelerometerSource) async throws {
        let (sensors, choice, plan, matrix) = try await source.plan()
        if sensors.isEmpty { print("no IIO devices found") }
        for sensor in sensors {
            let marker = sensor.id == choice.accelerometer?.id || sensor.id == choice.gyroscope?.id ? "*" : " "
            print("\(marker) \(sensor.id)  \(sensor.name)  \(sensor.kind.rawValue), \(sensor.bus == .input ? "evdev" : (sensor.hasBuffer ? (sensor.hasRawAttributes ? "buffered" : "buffer only") : "polled")), backend \(sensor.backend), location \(sensor.location.rawValue) (\(sensor.locationSource))")
            print("    \(choice.reasons[sensor.id] ?? "")")
            for candidate in sensor.mountMatrixCandidates { print("    mount matrix from \(candidate.source): \(candidate.text)") }
        }
        for warning in choice.warnings { print("warning: \(warning)") }
        if let plan, let matrix {
            print("using \(plan.device), \(plan.mode), mount matrix \(matrix.matrix) from \(matrix.source)")
            for (source, reason) in matrix.rejected { print("warning: ignoring the mount matrix from \(source): \(reason)") }
            let governor = source.rateGovernor
            if !governor.isEnabled {
                print("while still: read at the full rate (still-interval = 0)")
            } else if let event = IIOMotionEvent.find(for: plan) {
                print("while still: waits for the driver's motion event (\(event.enableFiles.map { $0.split(separator: "/").last.map(String.init) ?? $0 }.joined(separator: ", "))), reading at least every \(IIOMotionEvent.fallbackInterval) s")
            } else {
                print("while still: one reading every \(governor.stillInterval) s (still-interval)")
            }
        } else {
            print("no display accelerometer: orientationd would publish unknown and wait for one")
        }
        // A convertible (issue 30): which accelerometer is the display's and which the base's.
        let hinge = await OwnerThread.run(name: "od-udev-scan") { DiscoveringAccelerometerSource.hingeChannelOnCallingThread() } ?? nil
        let measured = hinge.map { ", hinge angle \($0.id) (\($0.driver.rawValue)), which decides the angle" } ?? ""
        // Every input switch, and which of them speak for the posture (issue 39).
        let switches = await OwnerThread.run(name: "od-udev-scan") { (try? SensorBackends.discover([.switches]))?.switches } ?? nil
        for device in switches ?? [] {
            let codes = [InputSwitchCode.lid, .tabletMode].filter { device.has($0) }.map(\.description)
            let ours = device.isOrientationdTabletModeSwitch ? " (orientationd's own, [posture] tablet-mode-switch)" : ""
            print("switch \(device.id)  \(device.name ?? "unnamed")  \(codes.isEmpty ? "other switches" : codes.joined(separator: ", "))\(ours)")
        }
        let tabletSwitch = (switches ?? []).first { $0.has(.tabletMode) && !$0.isOrientationdTabletModeSwitch }
        let word = tabletSwitch.map { " The machine's tablet-mode switch \($0.id) (\($0.name ?? "unnamed")) says folded or not (its own word); the angle says which (tablet, tent, stand; laptop, flat)." } ?? ""
        if let display = choice.accelerometer, let base = choice.base {
            print("posture: available: display \(display.id) (\(display.name)), base \(base.id) (\(base.name))\(measured); read only while someone subscribes to posture.\(word)")
        } else if let display = choice.accelerometer, hinge != nil {
            print("posture: available: display \(display.id) (\(display.name))\(measured); read only while someone subscribes to posture.\(word)")
        } else if let tabletSwitch {
            print("posture: available from the machine's tablet-mode switch \(tabletSwitch.id) (\(tabletSwitch.name ?? "unnamed")): tablet while it is on, laptop while off (closed while the lid switch is shut); no angle is measured (no accelerometer in the base, no hinge-angle channel), so no tent or stand; read only while someone subscribes to posture")
        } else {
            print("posture: not available: \(choice.accelerometer == nil ? "no display accelerometer" : "no accelerometer in the base (ACCEL_LOCATION=base), no hinge-angle channel and no tablet-mode switch")")
        }
    }
}
