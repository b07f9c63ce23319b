/// The meaning of one column of a log, matched by exact (case-sensitive) header name. `light`
/// and `proximity` exist from v2 on; `base_x`, `base_y`, `base_z` and `lid` (a convertible's
/// base accelerometer and lid switch, issue 30) from v3 on.
enum ColumnRole: Int, CaseIterable, Sendable {
    case time = 0, accelX, accelY, accelZ, gyroX, gyroY, gyroZ, light, proximity, baseX, baseY, baseZ, lid

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
        case .baseX: "base_x"
        case .baseY: "base_y"
        case .baseZ: "base_z"
        case .lid: "lid"
        }
    }

    var isAccel: Bool { self == .accelX || self == .accelY || self == .accelZ }
    var isGyro: Bool { self == .gyroX || self == .gyroY || self == .gyroZ }
    var isBase: Bool { self == .baseX || self == .baseY || self == .baseZ }
    /// Columns whose cells may be empty in every log (`accel_*` may be too, in a log with a
    /// base or lid column: the row of another sensor's reading).
    var isOptional: Bool { rawValue >= ColumnRole.gyroX.rawValue }
    /// The first log version that has this column (1, 2 or 3).
    var version: Int {
        switch self {
        case .light, .proximity: 2
        case .baseX, .baseY, .baseZ, .lid: 3
        default: 1
        }
    }

    static let allNames: [String] = allCases.map(\.name)

    init?(name: String) {
        guard let role = ColumnRole.allCases.first(where: { $0.name == name }) else { return nil }
        self = role
    }
}
