#!/usr/bin/env python3
"""Tests/web/stub.py: a stand-in for `pomodoro web` while its routes are being written, for the
browser suite only (Tests/web/run.sh uses the binary's own server once `pomodoro web` exists).
It speaks the API the page is written against (docs/internals.md, "The web page"): the page's
files from Sources/PomodoroWeb/Page (the icons from --icons DIR when given), the device's state
and commands through its control socket, the event stream (`state`, `offline`, keep-alive
comments), pairing by a code it writes to PAIR_FILE (the desk's screen), and a canned week,
stats picture and settings.

Usage: stub.py --socket CONTROL.SOCK --port N --page DIR --pair-file FILE [--view open|paired]
Python standard library only."""
import argparse
import datetime
import http.server
import json
import os
import secrets
import socket
import threading
import time

TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".js": "text/javascript; charset=utf-8", ".webmanifest": "application/manifest+json",
         ".svg": "image/svg+xml", ".png": "image/png"}
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
       "frame-ancestors 'none'")


class Desk:
    """The control socket: one request a connection (status, a command), or a watch."""

    def __init__(self, path):
        self.path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        s.connect(self.path)
        return s

    def ask(self, request):
        with self.connect() as s:
            s.sendall((json.dumps(request) + "\n").encode())
            return json.loads(s.makefile().readline())


def canned_week():
    today = datetime.date.today()
    days = []
    plan = [3, 5, 0, 4, 6, 2, 0]
    for back in range(6, -1, -1):
        day = today - datetime.timedelta(days=back)
        n = plan[back]
        sessions = []
        for i in range(n):
            end = datetime.datetime.combine(day, datetime.time(9 + i, 25)).astimezone()
            sessions.append({"mode": "focus", "ended": end.isoformat(timespec="seconds"), "outcome": "completed",
                             "actual_ms": 1500000})
            if i < n - 1:
                brk = end + datetime.timedelta(minutes=5)
                sessions.append({"mode": "short", "ended": brk.isoformat(timespec="seconds"),
                                 "outcome": "completed", "actual_ms": 300000})
        if back == 3:
            sessions.append({"mode": "soft", "ended": datetime.datetime.combine(day, datetime.time(7, 40)).astimezone()
                             .isoformat(timespec="seconds"), "outcome": "completed", "actual_ms": 300000})
            sessions.append({"mode": "focus", "ended": datetime.datetime.combine(day, datetime.time(16, 5)).astimezone()
                             .isoformat(timespec="seconds"), "outcome": "cancelled", "actual_ms": 420000})
        days.append({"day": day.isoformat(), "focus": n, "focus_ms": n * 1500000, "sessions": sessions})
    return days


def canned_svg(days):
    cells = []
    for i, d in enumerate(days):
        shade = ["#e8e2dc", "#f6b7a8", "#ef8a72", "#e5483b", "#b8321f"][min(4, (d["focus"] + 1) // 2)]
        cells.append(f'<rect x="{10 + i * 44}" y="30" width="40" height="40" rx="6" fill="{shade}"/>')
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 330 100" font-family="sans-serif">'
            '<text x="10" y="20" font-size="13" fill="#888">stub: the last 7 days</text>'
            + "".join(cells) + '<text x="10" y="92" font-size="13" fill="#888">streak 2 days, best 5</text></svg>')


SETTINGS = [
    {"key": "focus", "value": "25m", "from": "default", "about": "a focus session", "accepts": "5s to 23h59m59s"},
    {"key": "short_break", "value": "5m", "from": "default", "about": "a short break", "accepts": "5s to 23h59m59s"},
    {"key": "long_break", "value": "15m", "from": "default", "about": "a long break", "accepts": "5s to 23h59m59s"},
    {"key": "long_break_every", "value": "4", "from": "default", "about": "focus sessions to a long break",
     "accepts": "1 to 12"},
    {"key": "flow_break_ratio", "value": "5", "from": "default", "about": "a flow earns its length / this",
     "accepts": "1 to 20"},
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--page", required=True)
    ap.add_argument("--icons")
    ap.add_argument("--pair-file", required=True)
    ap.add_argument("--view", default="open")
    ap.add_argument("--keep-alive", type=float, default=15)
    args = ap.parse_args()
    desk = Desk(args.socket)
    tokens = set()
    pairing = {"code": None, "wrong": 0}
    settings = [dict(r) for r in SETTINGS]
    week = canned_week()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):
            pass

        def paired(self):
            cookie = self.headers.get("Cookie") or ""
            return any(p.strip() == f"pomodoro_session={t}" for t in tokens for p in cookie.split(";"))

        def send(self, status, body, ctype="application/json", headers=()):
            data = body if isinstance(body, bytes) else (json.dumps(body) if not isinstance(body, str) else body).encode()
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def error(self, status, reason):
            self.send(status, {"error": reason})

        def body(self):
            n = int(self.headers.get("Content-Length") or 0)
            try:
                return json.loads(self.rfile.read(n) or b"{}")
            except ValueError:
                return None

        def do_HEAD(self):
            self.do_GET()

        def do_GET(self):
            path = self.path.split("?")[0]
            if path == "/events":
                return self.events()
            if path == "/api/state":
                try:
                    return self.send(200, desk.ask({"cmd": "status"})["state"])
                except (OSError, ValueError, KeyError):
                    return self.error(503, "the desk cannot be reached now")
            if path == "/api/session":
                return self.send(200, {"paired": self.paired(), "view": args.view,
                                       "pairing_locked": pairing["wrong"] >= 5})
            if path == "/api/history":
                return self.send(200, {"days": week})
            if path == "/api/stats.svg":
                return self.send(200, canned_svg(week), "image/svg+xml")
            if path == "/api/settings":
                return self.send(200, {"settings": settings})
            name = "index.html" if path == "/" else path.lstrip("/")
            for folder in (args.page, args.icons):
                if folder and "/" not in name and os.path.isfile(os.path.join(folder, name)):
                    with open(os.path.join(folder, name), "rb") as f:
                        return self.send(200, f.read(), TYPES.get(os.path.splitext(name)[1], "application/octet-stream"),
                                         [("Content-Security-Policy", CSP)])
            return self.error(404, f"no such page: {path}")

        def do_POST(self):
            path = self.path.split("?")[0]
            body = self.body()
            if body is None:
                return self.error(400, "the body is not JSON")
            if path == "/api/pair":
                if pairing["wrong"] >= 5:
                    return self.error(429, "too many wrong codes: pairing is locked for 10 minutes")
                if "code" not in body:
                    pairing["code"] = f"{secrets.randbelow(10 ** 6):06d}"
                    with open(args.pair_file, "w") as f:
                        f.write(pairing["code"] + "\n")
                    return self.send(202, {"shown": "on the desk's screen for 2 minutes"})
                if pairing["code"] and body.get("code") == pairing["code"]:
                    token = secrets.token_hex(16)
                    tokens.add(token)
                    pairing["code"] = None
                    return self.send(200, {"paired": True}, headers=[
                        ("Set-Cookie", f"pomodoro_session={token}; HttpOnly; SameSite=Strict; Path=/")])
                pairing["wrong"] += 1
                return self.error(403, "that is not the code the desk shows")
            if not self.paired():
                return self.error(401, "pair this browser first: the desk shows a code")
            if path == "/api/command":
                try:
                    reply = desk.ask(body)
                except (OSError, ValueError):
                    return self.error(503, "the desk cannot be reached now")
                return self.send(200, reply) if reply.get("ok") else self.error(400, reply.get("error", "refused"))
            if path == "/api/settings":
                for row in settings:
                    if row["key"] == body.get("key"):
                        if body.get("reset"):
                            row["value"], row["from"] = SETTINGS[settings.index(row)]["value"], "default"
                        else:
                            row["value"], row["from"] = str(body.get("value")), "the page"
                        return self.send(200, row)
                return self.error(400, f"no setting named '{body.get('key')}'")
            return self.error(404, f"no such page: {path}")

        def events(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            lock = threading.Lock()

            def write(text):
                with lock:
                    self.wfile.write(text.encode())
                    self.wfile.flush()

            alive = [True]

            def keep_alive():
                while alive[0]:
                    time.sleep(args.keep_alive)
                    try:
                        write(": keep-alive\n\n")
                    except OSError:
                        alive[0] = False

            threading.Thread(target=keep_alive, daemon=True).start()
            offline_said = False
            try:
                while alive[0]:
                    try:
                        s = desk.connect()
                        s.sendall(b'{"cmd":"watch"}\n')
                        s.settimeout(None)
                        first = desk.ask({"cmd": "status"})["state"]
                        write(f"event: state\ndata: {json.dumps(first, separators=(',', ':'))}\n\n")
                        offline_said = False
                        for line in s.makefile():
                            j = json.loads(line)
                            state = j.get("state") or {k: v for k, v in j.items() if k != "event"}
                            if "phase" in state:
                                write(f"event: state\ndata: {json.dumps(state, separators=(',', ':'))}\n\n")
                        s.close()
                    except (OSError, ValueError, KeyError, TypeError):
                        pass
                    if not offline_said:
                        write("event: offline\ndata: {}\n\n")
                        offline_said = True
                    time.sleep(0.3)
            except OSError:
                alive[0] = False

    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(f"stub: listening on 127.0.0.1:{args.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
