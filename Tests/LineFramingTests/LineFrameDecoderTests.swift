import LineFraming
import NIOCore
import NIOEmbedded
import Testing

/// The decoder both ends of the socket use (issue 22, item 7), on an `EmbeddedChannel`: bytes in,
/// lines, errors and end-of-stream events out, with no socket and no clock.
@Suite struct LineFrameDecoderTests {
    /// What reached the handler after the decoder, in order.
    enum Output: Equatable, CustomStringConvertible {
        case line(String)
        case tooLong
        case unterminated(Int)
        var description: String {
            switch self {
            case .line(let text): "line \(text.debugDescription)"
            case .tooLong: "line too long"
            case .unterminated(let count): "unterminated \(count)"
            }
        }
    }

    final class Recorder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        var outputs: [Output] = []
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            outputs.append(.line(String(buffer: unwrapInboundIn(data))))
        }
        func errorCaught(context: ChannelHandlerContext, error: Error) {
            if error is LineFrameDecoder.LineTooLong { outputs.append(.tooLong) }
        }
        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? LineFrameDecoder.UnterminatedLine { outputs.append(.unterminated(event.byteCount)) }
        }
    }

    struct Case: Sendable, CustomStringConvertible {
        let name: String
        /// The reads, as they arrive.
        let reads: [String]
        let limit: Int
        /// What the handler behind the decoder sees, the end of the stream included.
        let expected: [Output]
        var description: String { name }
    }

    static let cases: [Case] = [
        .init(name: "one line", reads: ["ping\n"], limit: 8, expected: [.line("ping")]),
        .init(name: "split across reads", reads: ["{\"op\":", "\"pi", "ng\"}\n"], limit: 64, expected: [.line("{\"op\":\"ping\"}")]),
        .init(name: "newline alone in the next read", reads: ["abc", "\n"], limit: 8, expected: [.line("abc")]),
        .init(name: "CRLF", reads: ["get\r\n"], limit: 8, expected: [.line("get")]),
        .init(name: "CR and LF in different reads", reads: ["get\r", "\n"], limit: 8, expected: [.line("get")]),
        .init(name: "a CR inside a line is kept", reads: ["a\rb\n"], limit: 8, expected: [.line("a\rb")]),
        .init(name: "only the last CR is stripped", reads: ["a\r\r\n"], limit: 8, expected: [.line("a\r")]),
        .init(name: "blank lines are lines", reads: ["\n\r\n\n"], limit: 8, expected: [.line(""), .line(""), .line("")]),
        .init(name: "many lines in one read", reads: ["a\nbb\nccc\n\ndddd\n"], limit: 8,
              expected: [.line("a"), .line("bb"), .line("ccc"), .line(""), .line("dddd")]),
        .init(name: "exactly the limit", reads: ["12345678\n"], limit: 8, expected: [.line("12345678")]),
        .init(name: "exactly the limit, CRLF not counted", reads: ["12345678\r\n"], limit: 8, expected: [.line("12345678")]),
        .init(name: "limit + 1 with its newline", reads: ["123456789\n"], limit: 8, expected: [.tooLong]),
        .init(name: "limit + 1 without a newline yet: may still be a CR", reads: ["12345678\r"], limit: 8,
              expected: [.unterminated(9)]),
        .init(name: "limit + 1 without a newline, completed by CR LF", reads: ["12345678\r", "\n"], limit: 8,
              expected: [.line("12345678")]),
        .init(name: "limit + 2 without a newline: certain at once", reads: ["1234567890"], limit: 8, expected: [.tooLong]),
        .init(name: "too long, arriving a byte at a time", reads: "1234567890".map { String($0) }, limit: 8, expected: [.tooLong]),
        .init(name: "lines before a long one are delivered, nothing after", reads: ["ok\n123456789\nafter\n"], limit: 8,
              expected: [.line("ok"), .tooLong]),
        .init(name: "no newline at the end of the stream", reads: ["a\nrest"], limit: 8, expected: [.line("a"), .unterminated(4)]),
        .init(name: "limit 0: only blank lines", reads: ["\n\r\nx\n"], limit: 0, expected: [.line(""), .line(""), .tooLong]),
        .init(name: "UTF-8 counted in bytes", reads: ["ééé\n", "éééé\n", "ééééé\n"], limit: 8,
              expected: [.line("ééé"), .line("éééé"), .tooLong]),
    ]

    @Test(arguments: cases)
    func decodes(_ row: Case) throws {
        let recorder = Recorder()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers(ByteToMessageHandler(LineFrameDecoder(maximumLength: row.limit)), recorder)
        for read in row.reads {
            channel.pipeline.fireChannelRead(ByteBuffer(string: read))
        }
        _ = try? channel.finish()  // the end of the stream
        #expect(recorder.outputs == row.expected)
    }

    /// The server's limit follows a reloaded configuration: the decoder asks for it per line.
    @Test func aLimitReadPerLine() throws {
        let recorder = Recorder()
        let channel = EmbeddedChannel()
        var limit = 4
        try channel.pipeline.syncOperations.addHandlers(ByteToMessageHandler(LineFrameDecoder { limit }), recorder)
        channel.pipeline.fireChannelRead(ByteBuffer(string: "1234\n"))
        limit = 2
        channel.pipeline.fireChannelRead(ByteBuffer(string: "12\n1234\n"))
        #expect(recorder.outputs == [.line("1234"), .line("12"), .tooLong])
        _ = try? channel.finish()
    }
}
