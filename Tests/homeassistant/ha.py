"""Home Assistant's side of Tests/homeassistant/run.sh, run with Home Assistant's own Python (its venv in
the test's Debian root): onboarding, the MQTT config flow, and reading Home Assistant's states and
registries through its REST and WebSocket APIs. One subcommand a call; each prints one JSON object
on stdout (or a line of why on stderr, exit 1).

  ha.py requirements DOMAIN...       the Python requirements of these integrations, Home Assistant's
                                     default ones and their dependencies (from the manifests)
  ha.py wait-api                     until the HTTP API answers (60 s)
  ha.py onboard                      the onboarding steps; keeps the token in $HA_DIR/token
  ha.py mqtt PORT                    the MQTT integration through its config flow, broker 127.0.0.1:PORT
  ha.py snapshot PREFIX [--all]      states, entity registry and device registry of the MQTT entities
                                     whose object id starts with PREFIX (--all: any integration's)
  ha.py wait-entities PREFIX N [--since EPOCH-MS | --since-file FILE] [--timeout S] [--ready-file F]
                                     until N such entities are registered, each with a state other
                                     than unavailable; milliseconds since EPOCH-MS (or the one in FILE,
                                     read at the end; or its start); F made once it has looked once
  ha.py check-entities DISCOVERY SNAPSHOT
                                     PASS/FAIL lines: each config retained on the broker (DISCOVERY:
                                     mosquitto_sub -v lines) against Home Assistant's (SNAPSHOT)
  ha.py call DOMAIN SERVICE ENTITY [KEY=VALUE...] [--until ENTITY=STATE...] [--timeout S]
                                     calls a service, then waits until every ENTITY has STATE
                                     (ENTITY!=STATE: anything else; numbers compare as numbers);
                                     prints the milliseconds from the call to each
  ha.py wait ENTITY=STATE... [--timeout S] [--kill PID]
                                     until each state holds (`unavailable`, `on`...); milliseconds
                                     (from sending PID SIGKILL, with --kill)
"""

import asyncio
import json
import os
import sys
import time

HA_DIR = os.environ.get("HA_DIR", "/ha")
URL = os.environ.get("HA_URL", "http://127.0.0.1:8123")
CLIENT_ID = URL + "/"


def fail(why):
    print(why, file=sys.stderr)
    sys.exit(1)


def requirements(domains):
    """Walks the manifests from these domains and Home Assistant's defaults through their
    dependencies; prints the requirements, one a line (pip takes them with -r)."""
    import homeassistant
    from homeassistant import bootstrap

    components = os.path.join(os.path.dirname(homeassistant.__file__), "components")
    todo = set(domains) | bootstrap.DEFAULT_INTEGRATIONS | bootstrap.CORE_INTEGRATIONS
    todo |= bootstrap.LOGGING_AND_HTTP_DEPS_INTEGRATIONS - {"sentry", "isal"}
    seen, reqs = set(), set()
    while todo:
        domain = todo.pop()
        if domain in seen:
            continue
        seen.add(domain)
        path = os.path.join(components, domain, "manifest.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            manifest = json.load(f)
        reqs.update(manifest.get("requirements", []))
        todo.update(manifest.get("dependencies", []))
        # The named domains' after_dependencies too: 2026.11's MQTT config flow imports hassio
        # (aiohasupervisor) whether or not a supervisor runs.
        if domain in domains:
            todo.update(manifest.get("after_dependencies", []))
    for r in sorted(reqs):
        print(r)


async def session():
    import aiohttp

    return aiohttp.ClientSession()


def token():
    with open(os.path.join(HA_DIR, "token")) as f:
        return f.read().strip()


def auth():
    return {"Authorization": "Bearer " + token()}


async def wait_api():
    import aiohttp

    end = time.monotonic() + 120
    async with aiohttp.ClientSession() as s:
        while time.monotonic() < end:
            try:
                async with s.get(URL + "/api/onboarding") as r:
                    if r.status in (200, 401, 404):
                        print(json.dumps({"status": r.status}))
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.2)
    fail("Home Assistant's API did not answer in 120 s")


async def onboard():
    import aiohttp

    async with aiohttp.ClientSession() as s:
        async with s.post(
            URL + "/api/onboarding/users",
            json={
                "client_id": CLIENT_ID,
                "name": "Tester",
                "username": "tester",
                "password": "pomodoro-test",
                "language": "en",
            },
        ) as r:
            if r.status != 200:
                fail(f"onboarding/users: {r.status} {await r.text()}")
            code = (await r.json())["auth_code"]
        async with s.post(
            URL + "/auth/token", data={"grant_type": "authorization_code", "code": code, "client_id": CLIENT_ID}
        ) as r:
            if r.status != 200:
                fail(f"auth/token: {r.status} {await r.text()}")
            access = (await r.json())["access_token"]
        with open(os.path.join(HA_DIR, "token"), "w") as f:
            f.write(access)
        h = {"Authorization": "Bearer " + access}
        done = []
        for step, body in (
            ("core_config", None),
            ("analytics", None),
            ("integration", {"client_id": CLIENT_ID, "redirect_uri": CLIENT_ID + "?auth_callback=1"}),
        ):
            async with s.post(URL + "/api/onboarding/" + step, json=body, headers=h) as r:
                if r.status != 200:
                    fail(f"onboarding/{step}: {r.status} {await r.text()}")
                done.append(step)
        async with s.get(URL + "/api/onboarding") as r:
            steps = await r.json()
        print(json.dumps({"done": done, "steps": steps}))


async def mqtt(port):
    import aiohttp

    async with aiohttp.ClientSession(headers=auth()) as s:
        async with s.post(URL + "/api/config/config_entries/flow", json={"handler": "mqtt"}) as r:
            flow = await r.json()
            if r.status != 200:
                fail(f"config flow: {r.status} {flow}")
        # Later releases ask for a section `other_settings` in the broker step (2026.2 refuses
        # it), and 2026.11 requires two keys in it: a plain broker, no certificates.
        plain = {"set_client_cert": False, "set_ca_cert": "off"}
        body = {"broker": "127.0.0.1", "port": int(port)}
        for _ in range(3):
            async with s.post(URL + "/api/config/config_entries/flow/" + flow["flow_id"], json=body) as r:
                result = await r.json()
            asked = {k: v for k, v in plain.items() if f"other_settings.{k}'" in str(result)}
            if r.status == 400 and "other_settings" in str(result) and ("other_settings" not in body or asked):
                body["other_settings"] = {**body.get("other_settings", {}), **asked}
                continue
            break
        if r.status != 200 or result.get("type") != "create_entry":
            fail(f"config flow step {flow.get('step_id')}: {r.status} {result}")
        print(json.dumps({"entry": result.get("title"), "step": flow.get("step_id")}))


class WS:
    """Home Assistant's WebSocket API: commands and state_changed events."""

    def __init__(self, s):
        self.s = s
        self.n = 0
        self.events = asyncio.Queue()
        self.replies = {}

    async def __aenter__(self):
        self.ws = await self.s.ws_connect(URL + "/api/websocket")
        await self.ws.receive_json()
        await self.ws.send_json({"type": "auth", "access_token": token()})
        m = await self.ws.receive_json()
        if m.get("type") != "auth_ok":
            fail(f"websocket auth: {m}")
        self.reader = asyncio.create_task(self.read())
        return self

    async def __aexit__(self, *a):
        self.reader.cancel()
        await self.ws.close()

    async def read(self):
        async for msg in self.ws:
            m = json.loads(msg.data)
            if m.get("type") == "event":
                self.events.put_nowait((time.monotonic(), m["event"]))
            elif m.get("id") in self.replies:
                self.replies.pop(m["id"]).set_result(m)

    async def cmd(self, **body):
        self.n += 1
        body["id"] = self.n
        fut = asyncio.get_running_loop().create_future()
        self.replies[self.n] = fut
        await self.ws.send_json(body)
        m = await asyncio.wait_for(fut, 30)
        if not m.get("success"):
            fail(f"websocket {body.get('type')}: {m}")
        return m.get("result")


async def take_snapshot(s, prefix, any_platform=False):
    async with WS(s) as ws:
        entities = await ws.cmd(type="config/entity_registry/list")
        devices = await ws.cmd(type="config/device_registry/list")
        states = await ws.cmd(type="get_states")
    mine = [
        e
        for e in entities
        if (any_platform or e["platform"] == "mqtt") and e["entity_id"].split(".", 1)[1].startswith(prefix)
    ]
    ids = {e["entity_id"] for e in mine}
    if any_platform:
        ids |= {st["entity_id"] for st in states if st["entity_id"].split(".", 1)[1].startswith(prefix)}
    return {
        "entities": {
            e["entity_id"]: {
                "unique_id": e["unique_id"],
                "device_id": e["device_id"],
                "original_device_class": e.get("original_device_class"),
                "disabled_by": e.get("disabled_by"),
            }
            for e in mine
        },
        "states": {
            st["entity_id"]: {"state": st["state"], "attributes": st["attributes"]}
            for st in states
            if st["entity_id"] in ids
        },
        "devices": [
            {k: d.get(k) for k in ("id", "identifiers", "name", "manufacturer", "model", "sw_version")}
            for d in devices
            if any(i[0] == "mqtt" and i[1].startswith("pomodoro_") for i in d["identifiers"])
        ],
    }


async def snapshot(args):
    import aiohttp

    async with aiohttp.ClientSession(headers=auth()) as s:
        print(json.dumps(await take_snapshot(s, args[0], "--all" in args)))


async def wait_entities(args):
    import aiohttp

    prefix, n = args[0], int(args[1])
    since = time.time() * 1000
    timeout = 30.0
    if "--since" in args:
        since = float(args[args.index("--since") + 1])
    if "--timeout" in args:
        timeout = float(args[args.index("--timeout") + 1])
    end = time.monotonic() + timeout
    async with aiohttp.ClientSession(headers=auth()) as s:
        while True:
            snap = await take_snapshot(s, prefix)
            if "--ready-file" in args:
                open(args[args.index("--ready-file") + 1], "a").close()
            ready = [e for e in snap["entities"] if snap["states"].get(e, {}).get("state", "unavailable") != "unavailable"]
            if len(snap["entities"]) == n and len(ready) == n:
                done = time.time() * 1000
                if "--since-file" in args:
                    with open(args[args.index("--since-file") + 1]) as f:
                        since = float(f.read())
                print(json.dumps({"ms": round(done - since), "entities": sorted(snap["entities"])}))
                return
            if time.monotonic() > end:
                fail(f"after {timeout} s: {len(snap['entities'])} entities, {len(ready)} available, wanted {n}: {sorted(snap['entities'])}")
            await asyncio.sleep(0.05)


def check_entities(discovery_file, snapshot_file):
    """Each announced config against what Home Assistant made of it."""
    with open(snapshot_file) as f:
        snap = json.load(f)
    configs = []
    with open(discovery_file) as f:
        for line in f:
            if line.strip():
                topic, payload = line.rstrip("\n").split(" ", 1)
                configs.append((topic, json.loads(payload)))

    def check(ok, what):
        print(("PASS " if ok else "FAIL ") + what)

    ids = set()
    for topic, c in configs:
        eid = c["default_entity_id"]
        ids.add(eid)
        reg = snap["entities"].get(eid)
        st = snap["states"].get(eid, {})
        attrs = st.get("attributes", {})
        problems = []
        if reg is None:
            check(False, f"{eid}: not in Home Assistant's entity registry ({topic})")
            continue
        if reg["unique_id"] != c["unique_id"]:
            problems.append(f"unique_id {reg['unique_id']}")
        # The state's device class; the registry's where it keeps one (not for numbers in 2026.2).
        registered = reg.get("original_device_class")
        if c.get("device_class") != attrs.get("device_class") or registered not in (None, c.get("device_class")):
            problems.append(
                f"device class {attrs.get('device_class')} (registry {registered}), announced {c.get('device_class')}"
            )
        if c.get("unit_of_measurement") != attrs.get("unit_of_measurement"):
            problems.append(f"unit {attrs.get('unit_of_measurement')}, announced {c.get('unit_of_measurement')}")
        if "options" in c and c["options"] != attrs.get("options"):
            problems.append(f"options {attrs.get('options')}, announced {c['options']}")
        for key in ("min", "max", "step"):
            if key in c and float(c[key]) != float(attrs.get(key, "nan")):
                problems.append(f"{key} {attrs.get(key)}")
        if st.get("state") in (None, "unavailable"):
            problems.append(f"state {st.get('state')}")
        if attrs.get("friendly_name") != c["device"]["name"] + " " + c["name"]:
            problems.append(f"friendly name {attrs.get('friendly_name')}")
        what = ", ".join(
            x
            for x in (
                c.get("device_class") and "device class " + c["device_class"],
                c.get("unit_of_measurement") and "unit " + c["unit_of_measurement"],
                "options" in c and f"{len(c['options'])} options",
            )
            if x
        )
        check(not problems, f"{eid}" + (f" ({what})" if what else "") + (": " + "; ".join(problems) if problems else ""))
    extra = set(snap["entities"]) - ids
    check(not extra, f"no entity Home Assistant has that was not announced{': ' + str(sorted(extra)) if extra else ''}")
    devices = snap["devices"]
    dev = configs[0][1]["device"] if configs else {}
    one = len(devices) == 1 and all(e["device_id"] == devices[0]["id"] for e in snap["entities"].values())
    check(one, f"one device for all {len(configs)} entities: {[d['name'] for d in devices]}")
    if devices:
        d = devices[0]
        same = all(d.get(k) == dev.get(k) for k in ("name", "manufacturer", "model", "sw_version"))
        check(same, f"device info: {d['name']}, {d['manufacturer']}, {d['model']}, software {d['sw_version']}")
    phase = next((snap["states"][e] for e in snap["states"] if e.startswith("sensor.") and e.endswith("_phase")), None)
    check(
        phase is not None and {"cycle", "total_min"} <= set(phase["attributes"]),
        f"the phase's attributes: {phase and {k: phase['attributes'].get(k) for k in ('cycle', 'total_min', 'elapsed_min', 'earned_break_min')}}",
    )


def parse_until(args):
    until, rest, timeout = {}, [], 20.0
    i = 0
    while i < len(args):
        if args[i] == "--until":
            i += 1
            while i < len(args) and not args[i].startswith("--"):
                k, v = args[i].split("=", 1)
                if k.endswith("!"):
                    k, v = k[:-1], "!" + v
                until[k] = v
                i += 1
            continue
        if args[i] == "--timeout":
            timeout = float(args[i + 1])
            i += 2
            continue
        if args[i] == "--kill":
            rest.append(("kill", int(args[i + 1])))
            i += 2
            continue
        rest.append(args[i])
        i += 1
    return until, rest, timeout


def matches(want, have):
    if want.startswith("!"):
        return not matches(want[1:], have)
    if want == have:
        return True
    try:
        return float(want) == float(have)
    except (TypeError, ValueError):
        return False


async def watch(ws, until, start, timeout, before=None):
    """Milliseconds from `start` to each entity's reaching its state. States that hold already
    (`before`, read before the action; else now) count as 0."""
    got = {}
    for st in before if before is not None else await ws.cmd(type="get_states"):
        if st["entity_id"] in until and matches(until[st["entity_id"]], st["state"]):
            got[st["entity_id"]] = 0.0
    end = start + timeout
    while len(got) < len(until):
        left = end - time.monotonic()
        if left <= 0:
            now = {st["entity_id"]: st["state"] for st in await ws.cmd(type="get_states") if st["entity_id"] in until}
            fail(f"after {timeout} s: wanted {until}, have {now}")
        try:
            at, ev = await asyncio.wait_for(ws.events.get(), left)
        except asyncio.TimeoutError:
            continue
        d = ev.get("data", {})
        e = d.get("entity_id")
        new = (d.get("new_state") or {}).get("state")
        if e in until and e not in got and matches(until[e], new):
            got[e] = round((at - start) * 1000, 1)
        elif e in got and not matches(until[e], new):
            # Passed through and left again: it must hold at the end.
            del got[e]
    return got


async def call(args):
    import aiohttp

    until, rest, timeout = parse_until(args)
    domain, service, entity = rest[:3]
    data = {"entity_id": entity}
    for kv in rest[3:]:
        k, v = kv.split("=", 1)
        try:
            data[k] = json.loads(v)
        except ValueError:
            data[k] = v
    async with aiohttp.ClientSession(headers=auth()) as s:
        async with WS(s) as ws:
            await ws.cmd(type="subscribe_events", event_type="state_changed")
            before = await ws.cmd(type="get_states")
            start = time.monotonic()
            await ws.cmd(type="call_service", domain=domain, service=service, service_data=data)
            got = await watch(ws, until, start, timeout, before)
    changed = [v for v in got.values() if v > 0]
    if until and not changed:
        fail(f"nothing changed: {until} held before the call")
    print(json.dumps({"ms": got, "latency": max(changed, default=None)}))


async def wait(args):
    import aiohttp

    until, rest, timeout = parse_until(["--until"] + args)
    async with aiohttp.ClientSession(headers=auth()) as s:
        async with WS(s) as ws:
            await ws.cmd(type="subscribe_events", event_type="state_changed")
            start = time.monotonic()
            for _, pid in rest:
                os.kill(pid, 9)
            got = await watch(ws, until, start, timeout)
    print(json.dumps({"ms": got}))


def main():
    if len(sys.argv) < 2:
        fail(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "requirements":
        requirements(args)
    elif cmd == "wait-api":
        asyncio.run(wait_api())
    elif cmd == "onboard":
        asyncio.run(onboard())
    elif cmd == "mqtt":
        asyncio.run(mqtt(args[0]))
    elif cmd == "snapshot":
        asyncio.run(snapshot(args))
    elif cmd == "wait-entities":
        asyncio.run(wait_entities(args))
    elif cmd == "check-entities":
        check_entities(args[0], args[1])
    elif cmd == "call":
        asyncio.run(call(args))
    elif cmd == "wait":
        asyncio.run(wait(args))
    else:
        fail(__doc__)


if __name__ == "__main__":
    main()
