"""Running on a machine: the daemon, its schedule, cron and systemd install, the lock, the
heartbeat, the agents' plugins.
"""
