import CLibSystemd
import Glibc
import TestSupport

/// A private `dbus-daemon` configured like Debian's system bus: Debian's own system.conf with
/// `<listen>` pointed at a temporary socket, the user, pid file and service directories
/// dropped, and of the policy files only the project's config/net.hadess.SensorProxy.conf
/// (default-deny for owning names and for method calls, as on a real system).
final class PrivateSystemBus {
    let directory: String
    let address: String
    let pid: pid_t

    static var available: Bool {
        access("/usr/bin/dbus-daemon", X_OK) == 0 && access("/usr/share/dbus-1/system.conf", R_OK) == 0
    }

    static var repository: String { "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/") }

    /// `extraPolicy`: more `<policy>` elements for this bus (e.g. letting root own a name that a
    /// mock service takes). `services`: `.service` files (file name: contents, given the bus's
    /// directory) the bus starts on demand (bus activation), by itself, without the system bus's
    /// setuid launch helper (which reads only the real system's service directory).
    init(extraPolicy: String? = nil, services: (_ directory: String) -> [String: String] = { _ in [:] }) throws {
        var template = Array("/tmp/orientationd-bus-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        let socket = directory + "/system_bus_socket"
        address = "unix:path=" + socket
        var config = readText("/usr/share/dbus-1/system.conf")
        for (pattern, replacement) in [
            ("<user>messagebus</user>", ""), ("<standard_system_servicedirs/>", ""),
            ("<includedir>system.d</includedir>", ""), ("<includedir>/etc/dbus-1/system.d</includedir>", ""),
            ("<include ignore_missing=\"yes\">/etc/dbus-1/system.conf</include>", ""),
            ("<include ignore_missing=\"yes\">/etc/dbus-1/system-local.conf</include>", ""),
        ] {
            config = config.replacingAll(pattern, with: replacement)
        }
        config = config.replacingRegion(from: "<listen>", to: "</listen>", with: "<listen>unix:path=\(socket)</listen>")
        config = config.replacingRegion(from: "<pidfile>", to: "</pidfile>", with: "")
        let services = services(directory)
        if !services.isEmpty {
            mkdir(directory + "/services", 0o755)
            for (name, contents) in services { writeBytes(directory + "/services/" + name, Array(contents.utf8)) }
            config = config.replacingRegion(from: "<servicehelper>", to: "</servicehelper>",
                                            with: "<servicedir>\(directory)/services</servicedir>")
        }
        var includes = "<include>\(Self.repository)/config/net.hadess.SensorProxy.conf</include>\n"
        if let extraPolicy {
            writeBytes(directory + "/extra.conf", Array("""
                <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
                 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                <busconfig>\(extraPolicy)</busconfig>
                """.utf8))
            includes += "<include>\(directory)/extra.conf</include>\n"
        }
        config = config.replacingAll("</busconfig>", with: includes + "</busconfig>")
        writeBytes(directory + "/system.conf", Array(config.utf8))
        pid = try spawn(["/usr/bin/dbus-daemon", "--config-file=\(directory)/system.conf", "--nofork", "--nopidfile"],
                        environment: ["PATH=/usr/bin:/bin"], stderr: directory + "/dbus.err", newProcessGroup: true)
        let deadline = monotonicNow() + 10
        var client = connectUnix(socket)
        while client < 0, monotonicNow() < deadline {
            usleep(10_000)  // a socket file appearing is not awaitable
            client = connectUnix(socket)
        }
        guard client >= 0 else { throw TestbedError(description: "dbus-daemon did not start: \(readText(directory + "/dbus.err"))") }
        close(client)
    }

    /// Environment for a client that needs nothing but the bus.
    var clientEnvironment: [String] { ["PATH=/usr/bin:/bin", "DBUS_SYSTEM_BUS_ADDRESS=\(address)"] }

    /// This process's environment (umockdev's preload and testbed: the child sees the same
    /// sensors) plus the bus.
    var inheritedEnvironment: [String] {
        Self.processEnvironment.filter { !$0.hasPrefix("DBUS_SYSTEM_BUS_ADDRESS=") } + ["DBUS_SYSTEM_BUS_ADDRESS=\(address)"]
    }

    /// This process's environment: a child started with it sees the same umockdev sensors.
    static var processEnvironment: [String] {
        var result: [String] = []
        var index = 0
        while let entry = environ[index] {
            result.append(String(cString: entry))
            index += 1
        }
        return result
    }

    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    deinit { stop() }
}

/// A D-Bus client connection of the test's own, through libsystemd's non-variadic calls (a
/// connection that stays open, unlike `gdbus call`): claims held until released or closed.
final class BusClient {
    private var bus: OpaquePointer?

    init(address: String) throws {
        var bus: OpaquePointer? = nil
        guard sd_bus_new(&bus) >= 0, let bus else { throw TestbedError(description: "sd_bus_new") }
        sd_bus_set_address(bus, address)
        sd_bus_set_bus_client(bus, 1)
        let started = sd_bus_start(bus)
        guard started >= 0 else {
            sd_bus_unref(bus)
            throw TestbedError(description: "cannot connect to \(address): \(String(cString: strerror(-started)))")
        }
        self.bus = bus
    }

    /// Calls a method of net.hadess.SensorProxy; returns nil or the D-Bus error name.
    @discardableResult
    func call(_ member: String, stringArgument: String? = nil) -> String? {
        var message: OpaquePointer? = nil
        guard sd_bus_message_new_method_call(bus, &message, "net.hadess.SensorProxy", "/net/hadess/SensorProxy",
                                             "net.hadess.SensorProxy", member) >= 0 else { return "new_method_call failed" }
        defer { sd_bus_message_unref(message) }
        if let stringArgument {
            _ = stringArgument.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
        }
        var error = sd_bus_error()
        var reply: OpaquePointer? = nil
        let result = sd_bus_call(bus, message, 5_000_000, &error, &reply)
        defer {
            sd_bus_message_unref(reply)
            sd_bus_error_free(&error)
        }
        if result >= 0 { return nil }
        return error.name.map { String(cString: $0) } ?? String(cString: strerror(-result))
    }

    /// A string property of net.hadess.SensorProxy.
    func string(_ property: String) -> String? {
        var error = sd_bus_error()
        var value: UnsafeMutablePointer<CChar>? = nil
        defer { sd_bus_error_free(&error) }
        guard sd_bus_get_property_string(bus, "net.hadess.SensorProxy", "/net/hadess/SensorProxy", "net.hadess.SensorProxy",
                                         property, &error, &value) >= 0, let value else { return nil }
        defer { free(value) }
        return String(cString: value)
    }

    /// A boolean property of net.hadess.SensorProxy.
    func bool(_ property: String) -> Bool? {
        var error = sd_bus_error()
        var value: Int32 = 0
        defer { sd_bus_error_free(&error) }
        guard sd_bus_get_property_trivial(bus, "net.hadess.SensorProxy", "/net/hadess/SensorProxy", "net.hadess.SensorProxy",
                                          property, &error, CChar(UInt8(ascii: "b")), &value) >= 0 else { return nil }
        return value != 0
    }

    /// A double property of net.hadess.SensorProxy.
    func double(_ property: String) -> Double? {
        var error = sd_bus_error()
        var value = 0.0
        defer { sd_bus_error_free(&error) }
        guard sd_bus_get_property_trivial(bus, "net.hadess.SensorProxy", "/net/hadess/SensorProxy", "net.hadess.SensorProxy",
                                          property, &error, CChar(UInt8(ascii: "d")), &value) >= 0 else { return nil }
        return value
    }

    func close() {
        if let bus { sd_bus_flush_close_unref(bus) }
        bus = nil
    }

    deinit { close() }
}
