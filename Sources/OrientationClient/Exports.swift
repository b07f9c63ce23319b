// A client needs the orientation vocabulary, RotationPolicy, the light, proximity and compass
// readings, a convertible's posture and the wire types: re-export them.
@_exported import AmbientSensorCore
@_exported import OrientationCore
@_exported import OrientationProtocol
@_exported import PostureCore
