// A client needs the orientation vocabulary, RotationPolicy and the wire types: re-export them.
@_exported import OrientationCore
@_exported import OrientationProtocol
