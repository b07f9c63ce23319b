// Placeholder replaced by the motion synthesiser.
