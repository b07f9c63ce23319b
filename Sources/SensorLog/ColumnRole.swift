/// The meaning of one column of a log, matched by exact (case-sensitive) header name. `light`
/// and `proximity` exist from v2 on.
enum ColumnRole: Int, CaseIterable, Sendable {
    case time = 0, accelX, accelY, accelZ, gyroX, gyroY, gyroZ, light, proximity

    /// The header name of the column.
    var name: String {
        switch self {
        case .time: "time"
        case .accelX: "accel_x"
        case .accelY: "accel_y"
        case .accelZ: "accel_z"
        case .gyroX: "gyro_x"
        case .gyroY: "gyro_y"
        case .gyroZ: "gyro_z"
        case .light: "light"
        case .proximity: "proximity"
        }
    }

    var isGyro: Bool { self == .gyroX || self == .gyroY || self == .gyroZ }
    /// Columns whose cells may be empty.
    var isOptional: Bool { rawValue >= ColumnRole.gyroX.rawValue }
    /// Columns a v1 log cannot have.
    var needsV2: Bool { self == .light || self == .proximity }

    static let allNames: [String] = allCases.map(\.name)

    init?(name: String) {
        guard let role = ColumnRole.allCases.first(where: { $0.name == name }) else { return nil }
        self = role
    }
}
