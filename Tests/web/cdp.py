"""Tests/web/cdp.py: headless Chromium driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: the browser reads messages on its fd 3 and writes on its fd 4, each a
JSON object ended by a NUL byte), so no websocket library is needed. Python standard library only.

    with Browser(user_data_dir) as b:
        page = b.new_page(412, 892, mobile=True)
        page.goto("http://127.0.0.1:8080/")
        page.wait("document.readyState === 'complete'")
        page.click("#start")
        page.screenshot("phone.png")
"""
import base64
import fcntl
import json
import os
import queue
import subprocess
import threading
import time


class ProtocolError(Exception):
    pass


class Browser:
    def __init__(self, user_data_dir, binary="chromium", extra=()):
        # Our ends: we write to_browser, the browser reads it as fd 3; it writes fd 4, we read.
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        # Above 4, so that the dup2s below cannot clobber one another.
        to_r2, from_w2 = fcntl.fcntl(to_r, fcntl.F_DUPFD, 10), fcntl.fcntl(from_w, fcntl.F_DUPFD, 10)
        os.close(to_r)
        os.close(from_w)

        def child():
            os.dup2(to_r2, 3)
            os.dup2(from_w2, 4)

        args = [binary, "--headless=new", "--no-sandbox", "--remote-debugging-pipe", f"--user-data-dir={user_data_dir}",
                "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--metrics-recording-only", "--no-pings", "--mute-audio",
                "--hide-scrollbars", "--disable-features=Translate,MediaRouter,OptimizationHints",
                *extra, "about:blank"]
        self.proc = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=child, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=open(os.path.join(user_data_dir, "stderr.log"), "wb"))
        os.close(to_r2)
        os.close(from_w2)
        self.out = os.fdopen(to_w, "wb", buffering=0)
        self.inp = os.fdopen(from_r, "rb", buffering=0)
        self.next_id = 0
        self.lock = threading.Lock()
        self.waiting = {}  # id -> Queue for its reply
        self.events = queue.Queue()  # every event: (sessionId, method, params)
        self.listeners = []  # functions called with each event, on the reader thread
        threading.Thread(target=self._read, daemon=True).start()
        self.call("Target.setDiscoverTargets", discover=False)

    def _read(self):
        buf = b""
        while True:
            chunk = self.inp.read(65536)
            if not chunk:
                break
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    q = self.waiting.pop(msg["id"], None)
                    if q:
                        q.put(msg)
                else:
                    event = (msg.get("sessionId"), msg["method"], msg.get("params", {}))
                    for f in list(self.listeners):
                        f(*event)
                    self.events.put(event)
        for q in list(self.waiting.values()):
            q.put({"error": {"message": "the browser closed its pipe"}})

    def call(self, method, session=None, timeout=30, **params):
        with self.lock:
            self.next_id += 1
            i = self.next_id
            q = queue.Queue()
            self.waiting[i] = q
            msg = {"id": i, "method": method, "params": params}
            if session:
                msg["sessionId"] = session
            self.out.write(json.dumps(msg).encode() + b"\0")
        try:
            reply = q.get(timeout=timeout)
        except queue.Empty:
            raise ProtocolError(f"{method}: no reply in {timeout} s")
        if "error" in reply:
            raise ProtocolError(f"{method}: {reply['error'].get('message')}")
        return reply.get("result", {})

    def new_page(self, width, height, mobile=False, scale=None, dark=False, isolated=False):
        """isolated: in a browser context of its own (its own cookies: another phone)."""
        extra = {}
        if isolated:
            extra["browserContextId"] = self.call("Target.createBrowserContext")["browserContextId"]
        target = self.call("Target.createTarget", url="about:blank", **extra)["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        return Page(self, target, session, width, height, mobile, scale, dark)

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except ProtocolError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Page:
    def __init__(self, browser, target, session, width, height, mobile, scale, dark):
        self.b = browser
        self.target = target
        self.session = session
        self.mobile = mobile
        self.requests = []  # every URL the page asked for
        self.console = []  # console errors, exceptions, error log entries
        # (path, status) of answers the test asks for (a refused command): the browser logs
        # each such response as an error, which is expected then.
        self.expected_errors = []
        browser.listeners.append(self._event)
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=scale or (2.625 if mobile else 1), mobile=mobile)
        if mobile:
            self.call("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=5)
        self.call("Emulation.setEmulatedMedia", features=[
            {"name": "prefers-color-scheme", "value": "dark" if dark else "light"}])

    def _event(self, session, method, params):
        if session != self.session:
            return
        if method == "Network.requestWillBeSent":
            self.requests.append(params["request"]["url"])
        elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            self.console.append("console." + params["type"] + ": " + " ".join(
                str(a.get("value", a.get("description", ""))) for a in params["args"]))
        elif method == "Runtime.exceptionThrown":
            d = params["exceptionDetails"]
            self.console.append("exception: " + d.get("exception", {}).get("description", d.get("text", "")))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            e = params["entry"]
            if not any(e.get("url", "").endswith(path) and f"status of {status}" in e.get("text", "")
                       for path, status in self.expected_errors):
                self.console.append(f"log: {e.get('text')} {e.get('url', '')}")

    def call(self, method, **params):
        return self.b.call(method, session=self.session, **params)

    def goto(self, url):
        self.call("Page.navigate", url=url)

    def eval(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise ProtocolError(d.get("exception", {}).get("description", d.get("text")))
        return r["result"].get("value")

    def wait(self, expression, timeout=5.0, every=0.02):
        """Waits until `expression` is truthy; its value, or None after `timeout` seconds."""
        end = time.monotonic() + timeout
        while True:
            try:
                v = self.eval(expression)
            except ProtocolError:
                v = None
            if v:
                return v
            if time.monotonic() > end:
                return None
            time.sleep(every)

    def click(self, selector):
        """A real click (the mouse pressed and released at the element's middle), or a tap on
        a mobile page; False when the element is not there or not visible."""
        # The element's middle, once it is what is there (a page still scrolling, or moving its
        # layout, would have the tap land elsewhere).
        for _ in range(40):
            box = self.eval(f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
                if (!e || e.hidden || !e.offsetParent) return null; e.scrollIntoView({{block: 'center'}});
                const r = e.getBoundingClientRect(), x = r.x + r.width / 2, y = r.y + r.height / 2;
                const there = document.elementFromPoint(x, y);
                return [x, y, !!there && (there === e || e.contains(there))]; }})()""")
            if not box:
                return False
            if box[2]:
                break
            time.sleep(0.05)
        x, y = box[0], box[1]
        if self.mobile:
            for kind in ("touchStart", "touchEnd"):
                self.call("Input.dispatchTouchEvent", type=kind,
                          touchPoints=[{"x": x, "y": y}] if kind == "touchStart" else [])
        else:
            for kind in ("mousePressed", "mouseReleased"):
                self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)
        return True

    def type(self, selector, text):
        self.eval(f"document.querySelector({json.dumps(selector)}).focus()")
        self.call("Input.insertText", text=text)

    def enter(self):
        """The Enter key (a phone keyboard's Go): submits the form of the focused field."""
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter", windowsVirtualKeyCode=13,
                      nativeVirtualKeyCode=13, **({"text": "\r"} if kind == "keyDown" else {}))

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
