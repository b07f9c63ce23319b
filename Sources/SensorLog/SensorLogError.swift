// Placeholder replaced by the SensorLog implementation.
