"""Background runs: create, process concurrently, heartbeat, stop on a configuration fault, resume."""
