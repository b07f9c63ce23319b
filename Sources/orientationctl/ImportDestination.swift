import ArgumentParser
import Glibc

/// Where `import` writes: a temporary file that becomes the output only when the whole input
/// converted (issue 18: an import failing partway had already truncated `-o PRECIOUS` into a
/// one-sample log that replayed as valid).
///
/// For a path, the temporary file is `.NAME.XXXXXX` in the output's own directory (so the
/// final `rename(2)` is atomic, on one file system), mode 0644; ``commit()`` renames it over the
/// output. For `-` (standard output) it lives in `$TMPDIR` (else `/tmp`) and ``commit()`` copies
/// it to standard output, so a refused import prints nothing. ``discard()`` removes it.
/// A run killed by a signal can leave the temporary file behind; never the output half-written.
final class ImportDestination {
    /// The output as given (`-` for standard output).
    let output: String
    /// The file the log is written to until ``commit()``.
    let temporaryPath: String

    init(output: String) throws {
        self.output = output
        let directory: String
        let base: String
        if output == "-" {
            let tmp = getenv("TMPDIR").map { String(cString: $0) } ?? ""
            directory = tmp.isEmpty ? "/tmp" : tmp
            base = "orientationctl-import"
        } else if let slash = output.lastIndex(of: "/") {
            directory = slash == output.startIndex ? "/" : String(output[..<slash])
            base = String(output[output.index(after: slash)...])
        } else {
            directory = "."
            base = output
        }
        var template = Array((directory + "/." + base + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw CleanExit.message("import: \(output): cannot create a temporary file in \(directory): \(String(cString: strerror(errno)))",
                                    failing: true)
        }
        fchmod(fd, 0o644)
        close(fd)
        temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Makes the written log the output: renames it over the path, or copies it to standard output.
    func commit() throws {
        if output != "-" {
            guard rename(temporaryPath, output) == 0 else {
                let reason = String(cString: strerror(errno))
                discard()
                throw CleanExit.message("import: \(output): cannot replace: \(reason)", failing: true)
            }
            return
        }
        defer { discard() }
        let fd = open(temporaryPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CleanExit.message("import: \(temporaryPath): cannot open: \(String(cString: strerror(errno)))", failing: true) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return }
            var offset = 0
            while offset < n {
                let written = buffer[offset..<n].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // standard output closed (piped into head): nothing more to do
                }
                offset += written
            }
        }
    }

    /// Removes the temporary file (the output, if any, is untouched).
    func discard() {
        unlink(temporaryPath)
    }
}
