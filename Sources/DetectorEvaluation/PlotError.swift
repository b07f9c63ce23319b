/// Why a timeline could not be drawn (a range outside the recording, an empty recording).
public struct PlotError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
