"""The stream process: followers of live games (streams/server.py), fed by one subscription per process (hub.py)."""
