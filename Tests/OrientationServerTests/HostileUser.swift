import Glibc
import TestSupport

/// Another local user, for real: a Python client run under `setpriv` with a uid that is not
/// ours, holding its connections open until the test ends (issue 9's hostile local user).
///
/// Needs root (to change uid), `setpriv` and `python3`; tests using it are enabled only then.
final class HostileUser {
    static var available: Bool {
        getuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0 && access("/usr/bin/python3", X_OK) == 0
    }

    /// Opens `count` connections as `uid`, reads each first line, then prints
    /// `hello=H refused=R codes=c1,c2` and holds the open ones until killed.
    static let holderScript = """
    import socket, sys, time, json
    path, n = sys.argv[1], int(sys.argv[2])
    held, hello, refused, codes = [], 0, 0, []
    for _ in range(n):
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        try:
            s.connect(path)
            line = s.makefile('rb').readline()
        except Exception as e:
            refused += 1; codes.append(type(e).__name__); continue
        message = json.loads(line) if line else {}
        if message.get('type') == 'hello':
            hello += 1; held.append(s)
        else:
            refused += 1; codes.append(message.get('code', 'eof'))
    print(f"hello={hello} refused={refused} codes={','.join(sorted(set(codes)))}", flush=True)
    time.sleep(600)
    """

    let process: ChildProcess

    init(uid: UInt32, script: String, arguments: [String], directory: String) throws {
        process = try ChildProcess(["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups",
                                    "/usr/bin/python3", "-c", script] + arguments, directory: directory)
    }

    /// Opens and holds `count` connections to `path` as `uid`.
    static func holding(_ count: Int, uid: UInt32, path: String, directory: String) throws -> HostileUser {
        try HostileUser(uid: uid, script: holderScript, arguments: [path, "\(count)"], directory: directory)
    }

    /// The first line the script printed (a file filling up is not awaitable: polled, with a deadline).
    func report(timeout: Double = 30) -> String? {
        let deadline = monotonicNow() + timeout
        while monotonicNow() < deadline {
            let text = process.stdout
            if let newline = text.firstIndex(of: "\n") { return String(text[..<newline]) }
            if process.wait(timeout: 0) != nil { return nil }
            usleep(10_000)
        }
        return nil
    }

    deinit {
        kill(process.pid, SIGKILL)
    }
}
