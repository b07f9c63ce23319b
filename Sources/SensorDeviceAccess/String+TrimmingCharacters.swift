// What udev and sysfs hand back (values with trailing newlines or blanks), trimmed: udev
// enumeration here, and SensorIIO's sysfs readers and discovery.
extension String {
    package func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return String(s)
    }
}
