import NIOCore

/// Splits a byte stream into lines, for both ends of the socket protocol (docs/PROTOCOL.md): the
/// server reads requests with it, the client replies and events.
///
/// Contract:
/// - Each line is delivered without its terminator: `\n`, or `\r\n` (a trailing `\r` is
///   stripped; a `\r` elsewhere is part of the line).
/// - ``maximumLength`` counts the line without its terminator. A longer line throws
///   ``LineTooLong`` as soon as it is certain: when its `\n` arrives, or earlier once more than
///   `maximumLength + 1` bytes (the line and a possible `\r`) wait without one. Lines before it
///   are delivered first; nothing is delivered after it (`ByteToMessageHandler` stops decoding
///   after an error), so at most `maximumLength + 1` bytes are ever held.
/// - Blank lines are lines (empty buffers): whoever counts lines counts them too.
/// - At the end of the stream, bytes after the last `\n` are no line: they are discarded and
///   reported as ``UnterminatedLine`` (a user inbound event), never delivered.
public struct LineFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ByteBuffer

    /// The longest line accepted, in bytes, without its terminator; read afresh for every line.
    public var maximumLength: Int { limit() }
    private let limit: () -> Int

    /// A line longer than ``maximumLength``.
    public struct LineTooLong: Error, Equatable, CustomStringConvertible {
        public let maximumLength: Int
        public var description: String { "a line longer than \(maximumLength) bytes" }
    }

    /// The stream ended after `byteCount` bytes of a line without its `\n`.
    public struct UnterminatedLine: Equatable, Sendable {
        public let byteCount: Int
    }

    /// A decoder with a fixed limit.
    public init(maximumLength: Int) {
        precondition(maximumLength >= 0)
        limit = { maximumLength }
    }

    /// A decoder whose limit is asked for each line (the server's: a reloaded configuration
    /// applies to connections already open). Called on the channel's event loop only.
    public init(maximumLength: @escaping () -> Int) {
        limit = maximumLength
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let maximumLength = max(limit(), 0)
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            // Without its newline a line may still end in "\r": allow for it.
            if buffer.readableBytes > maximumLength + 1 { throw LineTooLong(maximumLength: maximumLength) }
            return .needMoreData
        }
        var length = newline - buffer.readerIndex
        if length > 0, buffer.getInteger(at: newline - 1, as: UInt8.self) == UInt8(ascii: "\r") {
            length -= 1  // the limit counts the line, not its terminator
        }
        if length > maximumLength { throw LineTooLong(maximumLength: maximumLength) }
        let line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(to: newline + 1)
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0 {
            let count = buffer.readableBytes
            buffer.moveReaderIndex(forwardBy: count)
            context.fireUserInboundEventTriggered(UnterminatedLine(byteCount: count))
        }
        return .needMoreData
    }
}
