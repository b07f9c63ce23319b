/// The touch and pen devices in `xinput list --long`: each device's first line carries its name
/// and `id=N`; a touchscreen has a class of `Type: XITouchClass`, a pen a valuator labelled
/// `Abs Pressure` (a mouse or touchpad has neither).
enum XInputDevices {
    static func touchAndPen(in text: String) -> [Int] {
        var result: [Int] = []
        var current: Int? = nil
        var matches = false
        func finish() {
            if let current, matches, !result.contains(current) { result.append(current) }
            matches = false
        }
        for line in text.split(separator: "\n") {
            if let range = line.firstRange(of: "id=") {
                finish()
                current = Int(line[range.upperBound...].prefix { $0.isNumber })
                // Master devices ("Virtual core pointer") and keyboards are not mapped.
                if line.contains("master") || line.contains("keyboard") { current = nil }
                continue
            }
            if line.contains("XITouchClass") || line.contains("Abs Pressure") { matches = true }
        }
        finish()
        return result
    }
}
