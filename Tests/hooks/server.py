#!/usr/bin/env python3
"""Tests/hooks/server.py: a small HTTP server on 127.0.0.1 standing in for a webhook's receiver, Slack's
Web API and ntfy, for Tests/hooks/run.sh. Each request is written to LOG as a JSON line (method, path,
headers, body) before it is answered. Paths:
  /flaky        the first answered 500, the second held past any hook_timeout (no answer), then 200
  /api/users.profile.get   {"ok":true,"profile":{"status_text":"Lunch","status_emoji":":sandwich:",...}}
  /api/<other>  {"ok":true}
  anything else 200 {"ok":true}
Usage: server.py PORT_FILE LOG  (it binds a free port on 127.0.0.1 and writes it to PORT_FILE)."""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port_file, log_file = sys.argv[1], sys.argv[2]
lock = threading.Lock()
flaky = [0]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        with lock:
            with open(log_file, "a", encoding="utf-8") as f:
                f.write(json.dumps({"method": self.command, "path": self.path,
                                    "headers": {k.lower(): v for k, v in self.headers.items()},
                                    "body": body}) + "\n")
            n = flaky[0] = flaky[0] + 1 if self.path == "/flaky" else flaky[0]
        if self.path == "/flaky" and n == 1:
            return self.answer(500, {"ok": False})
        if self.path == "/flaky" and n == 2:
            time.sleep(30)  # past the test's hook_timeout: the hooks end the transfer
            return
        if self.path.startswith("/api/users.profile.get"):
            return self.answer(200, {"ok": True, "profile": {"status_text": "Lunch", "status_emoji": ":sandwich:",
                                                             "status_expiration": 0}})
        return self.answer(200, {"ok": True})

    do_GET = do_POST = handle_any


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os  # noqa: E402
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
