import ArgumentParser

@main
struct OrientationCtl: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "orientationctl")
}
