/// The meaning of one column of a v1 log, matched by exact (case-sensitive) header name.
enum ColumnRole: Int, CaseIterable, Sendable {
    case time = 0, accelX, accelY, accelZ, gyroX, gyroY, gyroZ

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
        }
    }

    var isGyro: Bool { rawValue >= ColumnRole.gyroX.rawValue }

    static let allNames: [String] = allCases.map(\.name)

    init?(name: String) {
        guard let role = ColumnRole.allCases.first(where: { $0.name == name }) else { return nil }
        self = role
    }
}
