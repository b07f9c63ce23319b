// A client needs the orientation vocabulary, RotationPolicy, the light, proximity and compass
// readings and the wire types: re-export them.
@_exported import AmbientSensorCore
@_exported import OrientationCore
@_exported import OrientationProtocol
