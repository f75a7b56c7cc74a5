"""What a running process needs, shared by the API and the workers: settings, connections, and the queue."""
