"""What the Python HTTP servers the tests start share (mcp_http_test_server.py, mcp_oauth_test_server.py):
the request log they append to and a handler that keeps quiet. Not a server itself; the servers import it
from their own folder (python puts the script's folder first on sys.path)."""
import json
import threading
from http.server import BaseHTTPRequestHandler


class JsonLog:
    """log(entry) appends entry as one JSON line to the file at path; a lock keeps lines whole across the
    server's threads."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()

    def __call__(self, entry):
        with self.lock:
            with open(self.path, "a") as f:
                f.write(json.dumps(entry) + "\n")


class QuietHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 (keep-alive) and no access log on stderr."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass
