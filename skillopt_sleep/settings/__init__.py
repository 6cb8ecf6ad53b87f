"""What the user configures and where things live: the config and its schema, the environment file,
paths, the session logs' roots.
"""
