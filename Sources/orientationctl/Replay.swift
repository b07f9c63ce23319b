import ArgumentParser

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Replay a recorded sensor log (coming with SensorLog).")
}
