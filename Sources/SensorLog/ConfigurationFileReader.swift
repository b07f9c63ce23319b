import ConfigFileFormat
import Glibc
import OrientationCore

/// Reads orientationd's configuration file: the one reader for every tool (the daemon,
/// `orientationctl … --config`), so a path means the same everywhere.
///
/// Contract: only a regular file of at most ``maximumSize`` bytes is read; a directory, a device
/// (`/dev/zero`), a FIFO or a huge file is refused with a ``ConfigurationFileReadError`` naming
/// the path, without reading it (the open never blocks on a FIFO). Problems inside the file are
/// ``ConfigFileError``s naming the file and line.
package enum ConfigurationFileReader {
    /// 1 MiB: the sample configuration, every line uncommented, is under 10 KiB.
    package static let maximumSize = 1 << 20

    /// Reads and parses `path`.
    package static func load(_ path: String, knownSections: Set<String> = ConfigFile.orientationdSections) throws -> ConfigFile {
        let bytes = try read(path)
        return try ConfigFile(parsing: String(decoding: bytes, as: UTF8.self), source: path, knownSections: knownSections)
    }

    /// The file's bytes, after checking it is a small regular file.
    package static func read(_ path: String) throws(ConfigurationFileReadError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw ConfigurationFileReadError(path: path, problem: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ConfigurationFileReadError(path: path, problem: String(cString: strerror(errno))) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw ConfigurationFileReadError(path: path, problem: "is a directory, not a configuration file")
        case S_IFCHR: throw ConfigurationFileReadError(path: path, problem: "not a regular file (a character device)")
        case S_IFBLK: throw ConfigurationFileReadError(path: path, problem: "not a regular file (a block device)")
        case S_IFIFO: throw ConfigurationFileReadError(path: path, problem: "not a regular file (a pipe)")
        default: throw ConfigurationFileReadError(path: path, problem: "not a regular file")
        }
        guard Int(info.st_size) <= maximumSize else { throw tooLarge(path) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ConfigurationFileReadError(path: path, problem: "read failed: \(String(cString: strerror(errno)))")
            }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<n])
            guard bytes.count <= maximumSize else { throw tooLarge(path) }  // it grew while we read
        }
    }

    private static func tooLarge(_ path: String) -> ConfigurationFileReadError {
        ConfigurationFileReadError(path: path, problem: "larger than \(maximumSize / (1 << 20)) MiB; a configuration file is a few kilobytes")
    }
}

/// A configuration file that could not be read at all: `PATH: problem`.
package struct ConfigurationFileReadError: Error, CustomStringConvertible {
    package let path: String
    package let problem: String

    package var description: String { "\(ControlCharacters.escaped(path)): \(problem)" }
}
