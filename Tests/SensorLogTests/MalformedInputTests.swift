import OrientationCore
@testable import SensorLog
import Testing

private let magic = "# orientationd-log v1\n"
private let header = magic + "time,accel_x,accel_y,accel_z\n"
private let gyroHeader = magic + "time,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n"

/// (input, the first error's description with the file called "t.log", samples read before it)
let malformedCases: [(input: String, error: String, samplesBefore: Int)] = [
    ("", "t.log: not an orientationd log: the file is empty (the first line must be \"# orientationd-log v1\")", 0),
    ("time,accel_x,accel_y,accel_z\n0,1,2,3\n",
     "t.log:1: not an orientationd log: the first line must be \"# orientationd-log v1\", found \"time,accel_x,accel_y,accel_z\"; for a CSV from another tool, convert it first: orientationctl import --help", 0),
    ("\u{1}binary\u{0}garbage that goes on and on and on for a long while\n",
     "t.log:1: not an orientationd log: the first line must be \"# orientationd-log v1\", found \"?binary?garbage that goes on and on and …\"", 0),
    // v3 exists since issue 30 (a convertible's base accelerometer and lid switch): v4 is the
    // version from the future now.
    ("# orientationd-log v4\ntime,accel_x,accel_y,accel_z\n",
     "t.log:1: unsupported log version \"v4\"; this reader understands v1, v2 and v3", 0),
    (magic + "# device: d\n0.0,1,2,3\n", "t.log:3: data before the column header \"time,accel_x,accel_y,accel_z,...\"", 0),
    (magic + "# device: d\n\n", "t.log: the file ends before the column header \"time,accel_x,accel_y,accel_z,...\"", 0),
    (magic + "time,accel_x,accel_y,accel_z,foo\n",
     "t.log:2: unknown column \"foo\" (known: time, accel_x, accel_y, accel_z, gyro_x, gyro_y, gyro_z, light, proximity, base_x, base_y, base_z, lid)", 0),
    (magic + "time,accel_x,accel_x,accel_y,accel_z\n", "t.log:2: duplicate column \"accel_x\"", 0),
    (magic + "time,accel_x,accel_z\n", "t.log:2: missing required column \"accel_y\"", 0),
    (magic + "accel_x,accel_y,accel_z\n", "t.log:2: missing required column \"time\"", 0),
    (magic + "time,accel_x,accel_y,accel_z,gyro_x\n", "t.log:2: gyro columns must be all three or none, found 1 of 3", 0),
    (magic + "time,accel_x,accel_y,accel_z,gyro_z,gyro_x\n", "t.log:2: gyro columns must be all three or none, found 2 of 3", 0),
    (header + "0,1,2\n", "t.log:3: expected 4 cells, found 3", 0),
    (header + "0,1,2,3,4\n", "t.log:3: expected 4 cells, found 5", 0),
    (gyroHeader + "0,1,2,3,4\n", "t.log:3: expected 7 cells, found 5", 0),
    (header + "garbage\n", "t.log:3: expected 4 cells, found 1", 0),
    (header + "0,1,abc,3\n", "t.log:3: column accel_y: \"abc\" is not a number", 0),
    (header + "0,1,1.5.2,3\n", "t.log:3: column accel_y: \"1.5.2\" is not a number", 0),
    (header + "0,0x10,2,3\n", "t.log:3: column accel_x: \"0x10\" is not a number", 0),
    (header + "0,1, 2 5 ,3\n", "t.log:3: column accel_y: \"2 5\" is not a number", 0),
    (header + "0,1.,2,3\n", "t.log:3: column accel_x: \"1.\" is not a number", 0),
    (header + "0,1,2,1e\n", "t.log:3: column accel_z: \"1e\" is not a number", 0),
    (header + "0,1,2\u{0},3\n", "t.log:3: column accel_y: \"2?\" is not a number", 0),
    (header + "0,1,2,nanx\n", "t.log:3: column accel_z: \"nanx\" is not a number", 0),
    (header + "x,1,y,3\n", "t.log:3: column time: \"x\" is not a number", 0),
    (header + ",1,2,3\n", "t.log:3: column time: empty cell", 0),
    (header + "0,1,  ,3\n", "t.log:3: column accel_y: empty cell", 0),
    (header + "0,1,2,\n", "t.log:3: column accel_z: empty cell", 0),
    (gyroHeader + "0,1,2,3,0.1,,\n", "t.log:3: gyro cells must be all empty or all filled, found 1 of 3", 0),
    (gyroHeader + "0,1,2,3,0.1,0.2,\n", "t.log:3: gyro cells must be all empty or all filled, found 2 of 3", 0),
    (header + "0.03,1,2,3\n0.02,1,2,3\n", "t.log:4: time 0.02 does not increase (previous sample at 0.03)", 1),
    (header + "0.03,1,2,3\n0.03,1,2,3\n", "t.log:4: time 0.03 does not increase (previous sample at 0.03)", 1),
    (header + "nan,1,2,3\n", "t.log:3: column time: \"nan\" is not a finite time", 0),
    (header + "-Inf ,1,2,3\n", "t.log:3: column time: \"-Inf\" is not a finite time", 0),
    (header + "1e400,1,2,3\n", "t.log:3: column time: \"1e400\" is not a finite time", 0),
    (header + String(repeating: "1", count: 70_000) + "\n0,1,2,3\n", "t.log:3: line longer than 65536 bytes", 0),
    ("# orientationd-log v1\r\n# device: d\r\ntime,accel_x,accel_y,accel_z\r\n0,1,2,3\r\n1,2,3,x\r\n",
     "t.log:5: column accel_z: \"x\" is not a number", 1),
    (header + "0,1,2,3\n1,2,3", "t.log:4: expected 4 cells, found 3", 1),
    (header + "\n# comment\n0,1,2,3\n\n \t \n# x: y\n1,1,2,3\n  # indented comment\n1,1,2,3\n",
     "t.log:11: time 1.0 does not increase (previous sample at 1.0)", 2),
    (header + "0,1,2,3 # trailing comment\n", "t.log:3: column accel_z: \"3 # trailing comment\" is not a number", 0),
]

@Test(arguments: malformedCases)
func malformedInputReportsFileLineAndMessage(input: String, error expected: String, samplesBefore: Int) {
    let (samples, error) = readEverything(Array(input.utf8))
    #expect(error?.description == expected)
    #expect(samples.count == samplesBefore)
}

@Test(arguments: malformedCases, [1, 3, 64, 256 * 1024])
func malformedInputFromFileWithSmallChunks(input: (String, String, Int), chunkSize: Int) {
    let file = TemporaryFile(input.0)
    let (samples, error) = readEverything(path: file.path, chunkSize: chunkSize)
    let expected = input.1.hasPrefix("t.log") ? file.path + input.1.dropFirst(5) : input.1
    #expect(error?.description == expected)
    #expect(samples.count == input.2)
}

@Test func readingContinuesAfterALineError() throws {
    let text = header + "0,1,2,3\n0.5,1,x,3\n" + String(repeating: "9", count: 70_000) + "\n-0.5,1,2,3\n1,1,2,3\n"
    var reader = try SensorLogReader(bytes: Array(text.utf8), name: "c")
    #expect(try reader.next()?.time == 0)
    #expect(throws: SensorLogError(file: "c", line: 4, kind: .notANumber(column: "accel_y", text: "x"))) { try reader.next() }
    #expect(throws: SensorLogError(file: "c", line: 5, kind: .lineTooLong(limit: 65_536))) { try reader.next() }
    #expect(throws: SensorLogError(file: "c", line: 6, kind: .timeNotIncreasing(time: -0.5, previous: 0))) { try reader.next() }
    // The failed lines did not move "previous time": 1 > 0 is accepted.
    #expect(try reader.next()?.time == 1)
    #expect(try reader.next() == nil)
    #expect(try reader.next() == nil)
}

@Test func longLineIsSkippedWithoutBufferingItWhole() throws {
    let long = String(repeating: "12345,", count: 50)
    let file = TemporaryFile(header + "0,1,2,3\n" + long + "\n1,1,2,3\n" + long)
    var reader = try SensorLogReader(path: file.path, chunkSize: 7, maxLineLength: 32)
    #expect(try reader.next()?.time == 0)
    #expect(throws: SensorLogError(file: file.path, line: 4, kind: .lineTooLong(limit: 32))) { try reader.next() }
    #expect(try reader.next()?.time == 1)
    #expect(throws: SensorLogError(file: file.path, line: 6, kind: .lineTooLong(limit: 32))) { try reader.next() }
    #expect(try reader.next() == nil)
}

@Test func missingFileNamesThePath() {
    let path = "/nonexistent-dir/missing.log"
    #expect(throws: SensorLogError(file: path, line: nil, kind: .cannotOpen(errno: 2))) { _ = try SensorLogReader(path: path) }
    do {
        _ = try SensorLogReader(path: path)
    } catch {
        #expect(error.description == "/nonexistent-dir/missing.log: cannot open: No such file or directory")
    }
}

@Test func directoryReportsReadFailure() {
    do {
        _ = try SensorLogReader(path: "/tmp")
        Issue.record("expected an error")
    } catch {
        #expect(error.description == "/tmp: read failed: Is a directory")
    }
}
