// String searching without Foundation.

extension String {
    /// Every occurrence of `target` replaced.
    public func replacingAll(_ target: String, with replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.range(ofText: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }

    /// The text from the first `start` to the next `end` (both included) replaced.
    public func replacingRegion(from start: String, to end: String, with replacement: String) -> String {
        guard let a = Substring(self).range(ofText: start), let b = self[a.upperBound...].range(ofText: end) else { return self }
        return String(self[..<a.lowerBound]) + replacement + self[b.upperBound...]
    }

    /// The text without its trailing newlines.
    public func trimmingNewlines() -> String {
        var text = Substring(self)
        while text.last == "\n" { text = text.dropLast() }
        return String(text)
    }

    /// `suffix` replaced by `replacement` when the text ends with it.
    public func replacingSuffix(_ suffix: String, with replacement: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + replacement : self
    }
}

extension Substring {
    /// The first occurrence of `needle`, `nil` for an empty one.
    public func range(ofText needle: String) -> Range<Index>? {
        guard !needle.isEmpty else { return nil }
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(needle) { return index..<self.index(index, offsetBy: needle.count) }
            index = self.index(after: index)
        }
        return nil
    }
}
