#!/usr/bin/env python3
"""Load generation, measurement and the report of `make bench` (deploy/bench/run.sh starts and
stops the processes; this file measures them). Python standard library only, plus the tools
run.sh provides: wrk, kcat (watermarks), psql, and the built hearthctl, whose `publish` writes
every event the bench produces (Hearth's own envelope writer, not one of ours).

Every subcommand reads and rewrites one JSON state file (--state); `report` prints the table and
writes the final JSON. A phase that fails records {"error": ...} and the others still run: the
bench asserts nothing, it prints what it could measure and why the rest is missing.
"""
import argparse
import json
import os
import platform
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
WRK_LUA = os.path.join(HERE, "wrk.lua")
PREFS = {"adults": 2, "kidsAges": [4, 7], "allergies": ["peanuts", "shellfish"], "cuisines": ["italian", "mexican", "asian"]}
# devbroker (librdkafka's mock cluster) keeps at most 5 MiB per partition and silently deletes
# older data: producers are throttled so that no consumer falls further behind than this share.
BROKER_PARTITION_BYTES = 5 * 1024 * 1024
BACKLOG_SHARE = 0.4
HOUSEHOLD_PARTITIONS = 6
# What an event takes on the broker beyond its `hearthctl publish` input line (household.upserted):
# the envelope's metadata (~145 B), the key (36 B) and EventPublisher's headers (~160 B).
PUBLISHED_OVERHEAD = 350


def log(msg):
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


# --- state ---------------------------------------------------------------------------------------

def load_state(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def save_state(path, state):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f, indent=2, sort_keys=True)
    os.replace(tmp, path)


def update_state(path, key, value):
    state = load_state(path)
    state[key] = value
    save_state(path, state)


def phase(name):
    """Decorator: runs a subcommand, stores its result (or its error) under `name`."""
    def wrap(fn):
        def run(args):
            started = time.time()
            try:
                result = fn(args)
            except Exception as err:  # recorded, not raised: the other phases still run
                log(f"{name}: failed: {err}")
                result = {"error": f"{type(err).__name__}: {err}"}
            if isinstance(result, dict):
                result.setdefault("wall_s", round(time.time() - started, 1))
            update_state(args.state, name, result)
            return 0
        return run
    return wrap


# --- small helpers -------------------------------------------------------------------------------

def http(url, method="GET", body=None, token=None, timeout=30):
    """(status, body bytes); never raises for HTTP statuses."""
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def quantile(values, q):
    if not values:
        return None
    xs = sorted(values)
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def rnd(x, digits=2):
    return None if x is None else round(x, digits)


class Psql:
    """One long-lived psql session (a process per query would steal CPU from the measured system)."""

    END = "__bench_end__"

    def __init__(self, psql, url):
        self.err = open(os.devnull, "w")
        self.proc = subprocess.Popen(
            ["stdbuf", "-oL", psql, "-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=0", url],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        self.errors = []
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _drain_stderr(self):
        for line in self.proc.stderr:
            self.errors.append(line.rstrip())

    def rows(self, sql):
        self.proc.stdin.write(sql.strip().rstrip(";") + ";\n\\echo " + self.END + "\n")
        self.proc.stdin.flush()
        out = []
        while True:
            line = self.proc.stdout.readline()
            if line == "":
                raise RuntimeError("psql exited: " + "; ".join(self.errors[-3:]))
            line = line.rstrip("\n")
            if line == self.END:
                return [r.split("\t") for r in out if r != ""]
            out.append(line)

    def value(self, sql):
        rows = self.rows(sql)
        return rows[0][0] if rows and rows[0] else None

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


def applied(sql, topic="households"):
    """{projection: sum(next_offset)} over the topic's partitions."""
    rows = sql.rows(f"SELECT projection, sum(next_offset) FROM projection_offsets WHERE topic = '{topic}' GROUP BY projection")
    return {r[0]: int(r[1]) for r in rows}


def wait_quiet(sql, timeout=300, stable_polls=4, interval=0.3):
    """Until no projection has advanced for a few polls (the system is idle again)."""
    deadline = time.time() + timeout
    last, same = None, 0
    while time.time() < deadline:
        now = sql.rows("SELECT coalesce(sum(next_offset), 0) FROM projection_offsets")[0][0]
        same = same + 1 if now == last else 0
        if same >= stable_polls:
            return True
        last = now
        time.sleep(interval)
    log("warning: projections still moving after the wait")
    return False


def kcat_watermarks(kcat, bootstrap, topic, partitions, which):
    """which = -1 (end, high watermark) or -2 (beginning, log start). {partition: offset}."""
    cmd = [kcat, "-Q", "-b", bootstrap]
    for p in range(partitions):
        cmd += ["-t", f"{topic}:{p}:{which}"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    marks = {}
    for m in re.finditer(r"\[(\d+)\]\s+offset\s+(-?\d+)", out.stdout):
        marks[int(m.group(1))] = int(m.group(2))
    if len(marks) != partitions:
        raise RuntimeError(f"kcat -Q gave {out.stdout.strip()!r} {out.stderr.strip()!r}")
    return marks


class Events:
    """Input lines of `hearthctl publish`: one household.upserted a line, its payload in the
    current version of Shared/Events/Payloads/Households.swift. hearthctl wraps each in the
    envelope and keys it by the household id, as the gateway does."""

    def __init__(self, run, tag):
        self.run = run & 0xFFFF
        self.tag = tag & 0xFFF

    def household_id(self, h):
        return f"b0000000-{self.run:04x}-4{self.tag:03x}-8000-{h:012x}"

    def line(self, i, household, version, name):
        return json.dumps({
            "type": "household.upserted",
            "payload": {
                "household_id": self.household_id(household), "household_version": version, "name": name,
                "prefs": {"adults": 2, "kidsAges": [4, 7], "allergies": ["peanuts"], "cuisines": ["thai", "italian"]},
            },
            "correlation_id": f"bench-{self.run:x}-{self.tag:x}-{i:x}",
        }, separators=(",", ":")) + "\n"

    def chunk(self, start, count, households):
        """Events start..start+count-1; event i updates household i % households to version i // households + 1."""
        return "".join(
            self.line(i, i % households, i // households + 1, f"bench {i % households}")
            for i in range(start, start + count)).encode()


class Publisher:
    """One `hearthctl publish` process for a phase: lines in as they are sent, each event
    published as the services publish theirs. Its output goes to files, so that a chatty
    HEARTH_LOG_LEVEL cannot fill a pipe nobody reads before the end."""

    def __init__(self, hearthctl, bootstrap):
        self.out = tempfile.TemporaryFile()
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([hearthctl, "publish", "--kafka", bootstrap],
                                     stdin=subprocess.PIPE, stdout=self.out, stderr=self.err)

    def send(self, data):
        """Hands lines over; blocks while hearthctl is behind (its pipe is full)."""
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.close(timeout=60)  # hearthctl stopped: raises with its own one-line error
            raise

    def close(self, timeout=600):
        """Ends the input and waits until Kafka acknowledged every event; hearthctl's summary."""
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        self.proc.wait(timeout=timeout)
        self.out.seek(0)
        self.err.seek(0)
        out = self.out.read().decode(errors="replace").strip()
        err = self.err.read().decode(errors="replace").strip()
        if self.proc.returncode != 0:
            raise RuntimeError(f"hearthctl publish exited {self.proc.returncode}: {err[-400:]}")
        return out

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def produce_throttled(args, sql, chunks, base, label):
    """Publishes the chunks (an iterable of bytes) through one `hearthctl publish` while keeping
    the backlog of the slowest watched projection under the devbroker's retention (BACKLOG_SHARE
    of 5 MiB per partition, from the size of the first chunk's events as published). Returns
    (events, t_first, t_last), t_last once every event is acknowledged."""
    produced, limit = 0, None
    t0 = None
    stalled_since, last_min = time.time(), None
    publisher = Publisher(args.hearthctl, args.kafka)
    try:
        for chunk in chunks:
            n = chunk.count(b"\n")
            if limit is None:
                avg = len(chunk) / max(1, n) + PUBLISHED_OVERHEAD
                limit = max(20_000, int(HOUSEHOLD_PARTITIONS * BROKER_PARTITION_BYTES * BACKLOG_SHARE / avg))
                log(f"{label}: ~{avg:.0f} B per event on the broker; backlog kept under {limit} events")
            while True:
                now = applied(sql)
                watched = [now.get(p, 0) - base.get(p, 0) for p in args.watch]
                slowest = min(watched) if watched else produced
                if produced - slowest + n <= limit:
                    break
                if slowest != last_min:
                    last_min, stalled_since = slowest, time.time()
                elif time.time() - stalled_since > 120:
                    raise RuntimeError(f"{label}: projections stopped advancing ({dict(zip(args.watch, watched))})")
                time.sleep(0.05)
            if t0 is None:
                t0 = time.time()
            publisher.send(chunk)
            produced += n
        log(f"{label}: {publisher.close()}")
    except BaseException:
        publisher.kill()
        raise
    return produced, t0, time.time()


def wait_applied(sql, projections, base, target, timeout=600):
    deadline = time.time() + timeout
    stalled_since, last = time.time(), None
    while time.time() < deadline:
        now = applied(sql)
        got = {p: now.get(p, 0) - base.get(p, 0) for p in projections}
        if all(v >= target for v in got.values()):
            return got
        if got != last:
            last, stalled_since = got, time.time()
        elif time.time() - stalled_since > 120:
            raise RuntimeError(f"projections stopped advancing at {got} of {target}")
        time.sleep(0.1)
    raise RuntimeError(f"timeout waiting for {target} events")


def last_commit(sql, projection):
    """Commit time (epoch s) of the projection's latest offsets write (track_commit_timestamp)."""
    v = sql.value(f"""SELECT extract(epoch FROM max(pg_xact_commit_timestamp(xmin)))
                      FROM projection_offsets WHERE projection = '{projection}' AND topic = 'households'""")
    return float(v) if v else None


def metrics_lag(url):
    """Sum over partitions of hearth_projection_lag{projection="households"} (messages)."""
    try:
        status, body = http(url, timeout=5)
    except OSError:
        return None
    if status != 200:
        return None
    total, seen = 0.0, False
    for line in body.decode(errors="replace").splitlines():
        if line.startswith("hearth_projection_lag{") and 'projection="households"' in line and 'topic="households"' in line:
            total += float(line.rsplit(" ", 1)[1])
            seen = True
    return total if seen else None


def proc_status(pid):
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    k, v = line.split(":", 1)
                    out[k] = int(v.split()[0]) / 1024.0  # MiB
    except OSError:
        return None
    return out


# --- subcommands ---------------------------------------------------------------------------------

@phase("machine")
def cmd_machine(args):
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kb = int(f.readline().split()[1])
    distro = ""
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    distro = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    wrk_version = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.split("\n")[0].strip()
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    return {
        "nproc": os.cpu_count(), "cpu_model": model, "ram_gib": round(mem_kb / 1024 / 1024, 1),
        "kernel": f"{platform.system()} {platform.release()} {platform.machine()}", "distro": distro,
        "wrk": wrk_version, "loadavg_at_start": load, "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "build": args.build, "log_level": args.log_level,
    }


def cmd_rss(args):
    """VmRSS and VmHWM of each named process (several PIDs: summed), merged into state[--key]."""
    state = load_state(args.state)
    out = state.get(args.key) or {}
    for spec in args.pid:
        name, pid = spec.split("=", 1)
        stats = [s for s in (proc_status(p) for p in pid.split(",") if p) if s]
        if not stats:
            out[name] = None
            continue
        out[name] = {"rss_mib": rnd(sum(s.get("VmRSS", 0) for s in stats), 1),
                     "hwm_mib": rnd(sum(s.get("VmHWM", 0) for s in stats), 1), "processes": len(stats)}
    state[args.key] = out
    save_state(args.state, state)
    return 0


def cmd_note(args):
    state = load_state(args.state)
    state.setdefault("notes", {})[args.key] = args.value
    save_state(args.state, state)
    return 0


def run_wrk(url, conc, duration, method="GET", body=None, token=None, vary=False, header=None):
    env = dict(os.environ, BENCH_METHOD=method, BENCH_BODY=body or "", BENCH_TOKEN=token or "", BENCH_VARY_QUERY="1" if vary else "",
               BENCH_HEADER=header or "")
    cmd = ["wrk", f"-t{min(2, conc)}", f"-c{conc}", f"-d{duration}s", "--timeout", "10s", "--latency", "-s", WRK_LUA, url]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=duration + 60)
    m = re.search(r"^BENCH_JSON (\{.*\})$", out.stdout, re.MULTILINE)
    if not m:
        raise RuntimeError(f"wrk gave no summary: {out.stdout[-300:]} {out.stderr[-300:]}")
    r = json.loads(m.group(1))
    secs = r["duration_us"] / 1e6
    errors = r["errors_connect"] + r["errors_read"] + r["errors_write"] + r["errors_timeout"]
    return {
        "requests": r["requests"], "non_2xx": r["errors_status"], "socket_errors": errors,
        "rps": round(r["requests"] / secs, 1), "ok_rps": round((r["requests"] - r["errors_status"]) / secs, 1),
        "p50_ms": round(r["p50_us"] / 1000, 3), "p90_ms": round(r["p90_us"] / 1000, 3),
        "p99_ms": round(r["p99_us"] / 1000, 3), "max_ms": round(r["max_us"] / 1000, 3), "conc": conc,
    }


def probe(url, method, body, token):
    try:
        status, _ = http(url, method=method, body=body, token=token, timeout=30)
        return status
    except OSError as err:
        log(f"probe {url}: {err}")
        return None


@phase("http")
def cmd_http(args):
    """wrk against Hearth and the peer, interleaved run by run (same call, same concurrency)."""
    sql = Psql(args.psql, args.db)
    conc = [int(c) for c in args.conc.split(",")]
    hearth_upsert = json.dumps({"household_id": args.hid, "prefs": PREFS})
    peer_upsert = json.dumps({"household_id": args.peer_hid, "prefs": PREFS}) if args.peer else None
    calls = [
        ("household_read", "GET", f"/v1/households/{args.hid}", None, f"/v1/households/{args.peer_hid}", None),
        ("household_upsert", "POST", "/v1/households/upsert", hearth_upsert, "/v1/households/upsert", peer_upsert),
    ]
    results = {}
    # Recipe search: the seed's path (the peer's) unless BENCH_SEARCH_PATH names Hearth's.
    search = args.search_path
    status = probe(args.hearth + search, "GET", None, args.token)
    results["recipe_search_probe"] = {"path": search, "status": status}
    calls.append(("recipe_search", "GET", search if status == 200 else None, None, args.peer_search_path, None))
    # The same search with a new query text on every request (a number appended): nothing can be
    # answered from a cache, every query is embedded by the model.
    calls.append(("recipe_search_new", "GET", search if status == 200 else None, None, args.peer_search_path, None))

    for name, method, hpath, hbody, ppath, pbody in calls:
        vary = name == "recipe_search_new"
        results[name] = {"hearth": {}, "peer": {}}
        targets = []
        if hpath:
            st = probe(args.hearth + hpath, method, json.loads(hbody) if hbody else None, args.token)
            if st == 200:
                targets.append(("hearth", args.hearth + hpath, hbody, args.token))
            else:
                results[name]["hearth_unavailable"] = f"HTTP {st}"
        else:
            results[name]["hearth_unavailable"] = f"HTTP {status}"
        if args.peer and ppath:
            targets.append(("peer", args.peer + ppath, pbody, None))
        if not targets:
            continue
        for who, url, body, token in targets:  # warm-up, not recorded
            log(f"{name}: warm-up {who} ({args.warmup} s)")
            run_wrk(url, 16, args.warmup, method, body, token, vary)
            if who == "hearth":
                wait_quiet(sql)
        for i, c in enumerate(conc):
            order = targets if i % 2 == 0 else list(reversed(targets))
            for who, url, body, token in order:
                log(f"{name}: {who} at concurrency {c} ({args.duration} s)")
                results[name][who][str(c)] = run_wrk(url, c, args.duration, method, body, token, vary)
                r = results[name][who][str(c)]
                log(f"  {r['ok_rps']} req/s, p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, non-2xx {r['non_2xx']}")
                if who == "hearth":
                    wait_quiet(sql)  # let Hearth's projections drain before the next run

    # The activity feed (seed 001; the peer has none): a client that has the current answer sends
    # its ETag and gets a 304, one that has not gets the whole feed (200, every activity).
    feed_url = args.hearth + "/v1/activities/feed"
    etag = None
    for _ in range(120):  # the embedding-worker publishes the library at start-up
        try:
            status, raw = http(feed_url, token=args.token, timeout=30)
            if status == 200 and len(json.loads(raw).get("activities", [])) >= 150:
                etag = '"' + json.loads(raw)["etag"] + '"'
                break
        except (OSError, ValueError):
            pass
        time.sleep(1)
    if etag is None:
        results["activity_feed_304"] = results["activity_feed_200"] = {"hearth": {}, "peer": {}, "hearth_unavailable": "no library in the feed"}
    else:
        for name, header in (("activity_feed_304", f"If-None-Match: {etag}"), ("activity_feed_200", None)):
            results[name] = {"hearth": {}, "peer": {}}
            log(f"{name}: warm-up hearth ({args.warmup} s)")
            run_wrk(feed_url, 16, args.warmup, "GET", None, args.token, False, header)
            for c in conc:
                log(f"{name}: hearth at concurrency {c} ({args.duration} s)")
                r = results[name]["hearth"][str(c)] = run_wrk(feed_url, c, args.duration, "GET", None, args.token, False, header)
                log(f"  {r['ok_rps']} req/s, p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, non-2xx {r['non_2xx']}")
    sql.close()
    return results


DONE_RE = re.compile(rb'"event"\s*:\s*"done"|(^|\n)event:\s*done|"type"\s*:\s*"done"')
EVENT_RE = re.compile(rb'(?:^|\n)event:\s*([\w.-]+)|"event"\s*:\s*"([\w.-]+)"')
BAD_EVENTS = {"quota_exceeded", "refusal", "error"}


def stream_once(base, path, body, token, deadline_s=30.0):
    """POST and read the whole stream; (status, ttfb_ms, done_ms, total_ms). TTFB: first byte of the
    response, as curl's time_starttransfer; done: the read that brought the `done` event. A stream
    still open after deadline_s is closed and reported with status "timeout"."""
    host, port = base.split("//", 1)[1].split(":")
    payload = json.dumps(body).encode()
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: text/event-stream\r\nContent-Length: {len(payload)}\r\nConnection: close\r\n")
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    t0 = time.perf_counter()
    s = socket.create_connection((host, int(port)), timeout=deadline_s)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.sendall(head.encode() + b"\r\n" + payload)
    buf = bytearray()
    first = done = None
    timed_out = False
    while True:
        left = deadline_s - (time.perf_counter() - t0)
        if left <= 0:
            timed_out = True
            break
        s.settimeout(left)
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            timed_out = True
            break
        now = time.perf_counter()
        if not chunk:
            break
        if first is None:
            first = now
        buf += chunk
        if done is None and DONE_RE.search(buf):
            done = now
    s.close()
    end = time.perf_counter()
    m = re.match(rb"HTTP/1\.[01] (\d{3})", bytes(buf[:16]))
    status = "timeout" if timed_out and done is None else (int(m.group(1)) if m else None)
    ms = lambda t: None if t is None else (t - t0) * 1000  # noqa: E731
    names = {(a or b).decode() for a, b in EVENT_RE.findall(bytes(buf))}
    if status == 200 and ("final" not in names or names & BAD_EVENTS):
        status = "200 with " + (", ".join(sorted(names & BAD_EVENTS)) or "no final event")
    return status, ms(first), ms(done), ms(end)


def stream_stats(rows):
    ok = [r for r in rows if r[0] == 200 and r[2] is not None]
    others = {}
    for r in rows:
        if not (r[0] == 200 and r[2] is not None):
            others[str(r[0])] = others.get(str(r[0]), 0) + 1
    return {
        "runs": len(rows), "complete": len(ok), "incomplete": others,
        "ttfb_p50_ms": rnd(quantile([r[1] for r in ok], 0.5), 3), "ttfb_p99_ms": rnd(quantile([r[1] for r in ok], 0.99), 3),
        "done_p50_ms": rnd(quantile([r[2] for r in ok], 0.5), 3), "done_p99_ms": rnd(quantile([r[2] for r in ok], 0.99), 3),
    }


@phase("stream")
def cmd_stream(args):
    """Offline 7-day meal-plan stream, sequential runs, Hearth and peer alternating."""
    body = {"goal": "Plan dinners", "mode": "meals", "days": 7}
    out = {}
    targets = []
    try:
        st, ttfb, done, _ = stream_once(args.hearth, "/v1/assist/stream", dict(body, household_id=args.hid), args.token)
        if st == 200 and done is None:
            st = "200 without a done event"
        if st != 200:
            log(f"stream: Hearth's first run answered {st}")
    except OSError as err:
        st = f"error {err}"
    if st == 200:
        targets.append(("hearth", args.hearth, args.hid, args.token))
    elif st == "timeout":
        out["hearth_unavailable"] = "no done event within 30 s"
    else:
        out["hearth_unavailable"] = f"HTTP {st}"
    if args.peer:
        targets.append(("peer", args.peer, args.peer_hid, None))
    rows = {who: [] for who, *_ in targets}
    for who, base, hid, token in targets:
        for _ in range(3):  # warm-up
            stream_once(base, "/v1/assist/stream", dict(body, household_id=hid), token)
    log(f"stream: {args.runs} runs each on {', '.join(rows) or 'nothing'}")
    failures = {who: 0 for who in rows}
    for _ in range(args.runs):
        for who, base, hid, token in targets:
            if failures[who] >= 3:
                continue  # three timeouts in a row: this side is stuck, stop asking it
            r = stream_once(base, "/v1/assist/stream", dict(body, household_id=hid), token)
            rows[who].append(r)
            failures[who] = failures[who] + 1 if r[0] == "timeout" else 0
    for who in rows:
        out[who] = stream_stats(rows[who])
    return out


@phase("pipeline")
def cmd_pipeline(args):
    """N household.upserted events published to `households` with `hearthctl publish`; the time
    from the first produce to the commit of the projection's last offsets write."""
    sql = Psql(args.psql, args.db)
    wait_quiet(sql)
    base = applied(sql)
    gen = Events(args.run_id, 1)
    n, size = args.events, args.chunk
    households = max(1, n // 10)
    log(f"pipeline: preparing {n} events ({households} households, 10 versions each)")
    chunks = [gen.chunk(s, min(size, n - s), households) for s in range(0, n, size)]
    _, t0, t_last_produce = produce_throttled(args, sql, chunks, base, "pipeline")
    got = wait_applied(sql, args.watch, base, n)
    out = {"events": n, "households": households, "produce_s": round(t_last_produce - t0, 2)}
    for p in args.watch:
        t_end = last_commit(sql, p)
        if t_end:
            out[p] = {"seconds": round(t_end - t0, 2), "events_per_s": round(got[p] / (t_end - t0))}
    sql.close()
    return out


@phase("lag")
def cmd_lag(args):
    """Steady rate through one `hearthctl publish`; each event creates its own household, so the
    read model row's commit time (track_commit_timestamp) minus its occurred_at (stamped by
    hearthctl as it publishes) is that event's lag."""
    sql = Psql(args.psql, args.db)
    wait_quiet(sql)
    base = applied(sql)
    gen = Events(args.run_id, 2)
    total = args.rate * args.seconds
    tick = 0.01
    per_tick = max(1, int(round(args.rate * tick)))
    samples = []
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            v = metrics_lag(args.metrics)
            if v is not None:
                samples.append(v)
            stop.wait(1.0)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    publisher = Publisher(args.hearthctl, args.kafka)
    log(f"lag: {args.rate} events/s for {args.seconds} s ({per_tick} every {tick * 1000:.0f} ms)")
    try:
        start = time.monotonic()
        sent, k = 0, 0
        while sent < total:
            target = start + k * tick
            delay = target - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            batch = min(per_tick, total - sent)
            data = "".join(gen.line(sent + j, sent + j, 1, f"lagprobe {sent + j}") for j in range(batch))
            publisher.send(data.encode())
            sent += batch
            k += 1
        achieved = sent / (time.monotonic() - start)
        log(f"lag: {publisher.close(timeout=60)}")
    except BaseException:
        publisher.kill()
        raise
    wait_applied(sql, ["households"], base, total)
    stop.set()
    rows = sql.rows("""
        SELECT count(*), count(pg_xact_commit_timestamp(xmin)),
               percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM pg_xact_commit_timestamp(xmin) - updated_at) * 1000),
               percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM pg_xact_commit_timestamp(xmin) - updated_at) * 1000),
               max(extract(epoch FROM pg_xact_commit_timestamp(xmin) - updated_at) * 1000)
        FROM households WHERE name LIKE 'lagprobe %'""")
    sql.close()
    count, with_ts, p50, p99, mx = rows[0]
    out = {"events": total, "rate_target": args.rate, "rate_achieved": round(achieved), "rows": int(count),
           "rows_with_commit_ts": int(with_ts), "metrics_lag_max": max(samples) if samples else None,
           "metrics_lag_median": quantile(samples, 0.5),
           "metrics_lag_samples": len(samples)}
    if int(with_ts) > 0:
        out.update(p50_ms=rnd(float(p50), 2), p99_ms=rnd(float(p99), 2), max_ms=rnd(float(mx), 2))
    return out


@phase("replay")
def cmd_replay(args):
    """Tops the households topic up to --total events (real events through Kafka, archived by the
    live event_log projection; devbroker drops the start of each partition), then times
    `hearthctl replay households`."""
    sql = Psql(args.psql, args.db)
    wait_quiet(sql)
    high = kcat_watermarks(args.kcat, args.kafka, "households", HOUSEHOLD_PARTITIONS, -1)
    have = sum(high.values())
    missing = max(0, args.total - have)
    out = {"topic_events_before_topup": have, "topup_events": missing}
    if missing:
        base = applied(sql)
        gen = Events(args.run_id, 3)
        households = max(1, missing // 10)
        size = args.chunk
        chunks = (gen.chunk(s, min(size, missing - s), households) for s in range(0, missing, size))
        # a generator: each chunk is made when it is sent (this part is not timed)
        _, t0, _ = produce_throttled(args, sql, chunks, base, "top-up")
        wait_applied(sql, args.watch, base, missing, timeout=1800)
        out["topup_events_per_s"] = round(missing / (time.time() - t0))
    wait_quiet(sql)
    low = kcat_watermarks(args.kcat, args.kafka, "households", HOUSEHOLD_PARTITIONS, -2)
    high = kcat_watermarks(args.kcat, args.kafka, "households", HOUSEHOLD_PARTITIONS, -1)
    archived = int(sql.value("SELECT count(*) FROM event_log WHERE topic = 'households'"))
    out.update(topic_events=sum(high.values()), archived_events=archived,
               kafka_log_start={str(k): v for k, v in sorted(low.items())},
               partitions_trimmed=sum(1 for v in low.values() if v > 0))
    sql.close()
    env = dict(os.environ, HEARTH_DATABASE_URL=args.db, HEARTH_KAFKA_BOOTSTRAP=args.kafka)
    log(f"replay: hearthctl replay households ({sum(high.values())} events in the topic, {archived} archived)")
    t0 = time.perf_counter()
    res = subprocess.run([args.hearthctl, "replay", "households"], env=env, capture_output=True, text=True, timeout=3600)
    wall = time.perf_counter() - t0
    out["hearthctl_exit"] = res.returncode
    out["output"] = res.stdout.strip().splitlines()
    if res.returncode not in (0, 3):
        out["stderr"] = res.stderr.strip().splitlines()[-5:]
        raise RuntimeError(f"hearthctl replay exited {res.returncode}: {res.stderr.strip()[-300:]}")
    m = re.search(r"events applied:\s*(\d+)", res.stdout)
    sources = re.findall(r"^\s+(households/\d+): read from (\S+)", res.stdout, re.MULTILINE)
    out.update(seconds=round(wall, 2), events=int(m.group(1)) if m else None,
               sources=dict(sources), checksum_identical="identical" in res.stdout)
    if out["events"]:
        out["events_per_s"] = round(out["events"] / wall)
    return out


# --- report --------------------------------------------------------------------------------------

def fmt(x, digits=1, unit=""):
    if x is None:
        return "—"
    if isinstance(x, float) and digits == 0:
        return f"{x:,.0f}{unit}"
    if isinstance(x, (int, float)):
        return f"{x:,.{digits}f}{unit}" if isinstance(x, float) else f"{x:,}{unit}"
    return str(x)


def cmd_report(args):
    s = load_state(args.state)
    out_lines = []
    p = out_lines.append
    m = s.get("machine", {})
    p("")
    p(f"Hearth bench  {m.get('started_at', '')}  ({m.get('build', '?')} build, HEARTH_LOG_LEVEL={m.get('log_level', '?')})")
    p(f"machine: {m.get('nproc')} × {m.get('cpu_model')}, {m.get('ram_gib')} GiB RAM, {m.get('kernel')}"
      f" ({m.get('distro')})")
    with open("/proc/loadavg") as f:
        s.setdefault("loadavg_at_end", f.read().split()[:3])
    p(f"load average (1/5/15 min) before the bench started {' '.join(m.get('loadavg_at_start', []))} (other work on the box),"
      f" at its end {' '.join(s['loadavg_at_end'])} (the bench's own load included)")
    p("Hearth, its Postgres and devbroker, the peer, its Postgres and the load generator share these cores.")
    p("")

    h = s.get("http", {})
    p("Gateway, wrk (-t min(2,c) -c c, 10 s per run after a 3 s warm-up; Hearth and peer runs interleaved)")
    p(f"{'call':<18}{'conc':>5} | {'Hearth req/s':>12} {'p50 ms':>8} {'p99 ms':>8} | {'peer req/s':>10} {'p50 ms':>8} {'p99 ms':>8} | {'ratio':>7}  target")
    targets = {"household_read": 10.0, "household_upsert": 10.0, "recipe_search": 3.0, "recipe_search_new": 3.0}
    if "error" in h:
        p(f"  not measured: {h['error']}")
    for call in ("household_read", "household_upsert", "recipe_search", "recipe_search_new"):
        r = h.get(call)
        if r is None:
            continue
        concs = sorted(set(r.get("hearth", {})) | set(r.get("peer", {})), key=int) or ["—"]
        for c in concs:
            hr = r.get("hearth", {}).get(c)
            pr = r.get("peer", {}).get(c)
            if hr:
                hcols = f"{fmt(hr['ok_rps'], 0):>12} {fmt(hr['p50_ms'], 2):>8} {fmt(hr['p99_ms'], 2):>8}"
                if hr["non_2xx"] or hr["socket_errors"]:
                    hcols += f"  ({hr['non_2xx']} non-2xx, {hr['socket_errors']} socket errors)"
            else:
                why = r.get("hearth_unavailable", "")
                hcols = f"{'not available yet (' + why + ')':>30}"
            pcols = (f"{fmt(pr['ok_rps'], 0):>10} {fmt(pr['p50_ms'], 2):>8} {fmt(pr['p99_ms'], 2):>8}" if pr else f"{'—':>10} {'':>8} {'':>8}")
            ratio = f"{hr['ok_rps'] / pr['ok_rps']:.1f}×" if hr and pr and pr["ok_rps"] else "—"
            p(f"{call:<18}{c:>5} | {hcols} | {pcols} | {ratio:>7}  ≥ {targets[call]:.0f}× peer req/s")
    feed_targets = {"activity_feed_304": 0.8, "activity_feed_200": 0.3}
    for call in ("activity_feed_304", "activity_feed_200"):
        r = h.get(call)
        if r is None:
            continue
        for c, hr in sorted(r.get("hearth", {}).items(), key=lambda kv: int(kv[0])) or [("—", None)]:
            base = h.get("household_read", {}).get("hearth", {}).get(c)
            if hr:
                hcols = f"{fmt(hr['ok_rps'], 0):>12} {fmt(hr['p50_ms'], 2):>8} {fmt(hr['p99_ms'], 2):>8}"
            else:
                hcols = f"{'not available (' + r.get('hearth_unavailable', '?') + ')':>30}"
            ratio = f"{hr['ok_rps'] / base['ok_rps']:.2f}×" if hr and base and base["ok_rps"] else "—"
            p(f"{call:<18}{c:>5} | {hcols} | {'no peer':>10} {'':>8} {'':>8} | {ratio:>7}  ≥ {feed_targets[call]:.1f}× Hearth's household_read")
    p("  (activity_feed_304 sends the current ETag as If-None-Match: 304, no body; activity_feed_200 reads the whole")
    p("   feed of 160 activities; both are answered from memory until the activities projection commits)")
    p("  (household_read repeats one read with no writes meanwhile: Hearth answers it from its household cache,")
    p("   valid until a households/users projection commits; the peer queries Postgres every time)")
    p("  (req/s counts 2xx answers only; upsert = update of the bench user's one household, whose 200 on Hearth")
    p("   is sent after Kafka acknowledged the event; the peer updates one row in Postgres)")
    p("  (recipe_search repeats one query: after its first request Hearth answers from its result cache, valid until")
    p("   the index changes; recipe_search_new appends a new number to the query on every request, so each one is")
    p("   embedded and searched; the peer's embedding is a hashed bag of words, Hearth's is MiniLM)")
    p("")

    st = s.get("stream", {})
    p("Offline 7-day meal-plan stream, POST /v1/assist/stream, sequential runs (Hearth and peer alternating)")
    if "error" in st:
        p(f"  not measured: {st['error']}")
    else:
        for who in ("hearth", "peer"):
            r = st.get(who)
            if r:
                p(f"  {who:<7} first byte p50 {fmt(r['ttfb_p50_ms'], 2)} ms, p99 {fmt(r['ttfb_p99_ms'], 2)} ms; done p50 "
                  f"{fmt(r['done_p50_ms'], 2)} ms, p99 {fmt(r['done_p99_ms'], 2)} ms; {r['complete']}/{r['runs']} complete (final + done)"
                  + (f"; others: {r['incomplete']}" if r.get("incomplete") else ""))
            elif who == "hearth":
                p(f"  hearth  not available yet ({st.get('hearth_unavailable', '?')})")
        hr, pr = st.get("hearth"), st.get("peer")
        ratio = f"{hr['done_p50_ms'] / pr['done_p50_ms']:.2f}× (lower is better)" if hr and pr and hr.get("done_p50_ms") and pr.get("done_p50_ms") else "—"
        p(f"  ratio Hearth/peer of done p50: {ratio}; target: Hearth done ≤ 10 ms p50")
    p(f"  hybrid search: {'see recipe_search above' if h.get('recipe_search', {}).get('hearth') else 'not available yet (' + str(h.get('recipe_search_probe', {}).get('status')) + ' on ' + str(h.get('recipe_search_probe', {}).get('path')) + ')'}")
    p("")

    pl = s.get("pipeline", {})
    p("Event pipeline (household.upserted published to `households` with `hearthctl publish`)")
    if "error" in pl or not pl:
        p(f"  not measured: {pl.get('error', 'phase did not run')}")
    else:
        hp = pl.get("households", {})
        ev = pl.get("event_log", {})
        p(f"  {fmt(pl['events'])} events: households projection {fmt(hp.get('events_per_s'))} events/s ({hp.get('seconds')} s);"
          f" event_log (archive) {fmt(ev.get('events_per_s'))} events/s; target ≥ 20,000 events/s")
        p("  (producer throttled to the slowest of the topic's projections, all running meanwhile: devbroker keeps 5 MiB per partition)")
    lg = s.get("lag", {})
    if "error" in lg or not lg:
        p(f"  end-to-end lag: not measured: {lg.get('error', 'phase did not run')}")
    elif "p50_ms" in lg:
        p(f"  end-to-end lag at {fmt(lg['rate_achieved'])} events/s for {fmt(lg['events'])} events: p50 {lg['p50_ms']} ms, p99 {lg['p99_ms']} ms,"
          f" max {lg['max_ms']} ms (row commit time − occurred_at)")
        p(f"  hearth_projection_lag{{projection=households}} sampled each second: median {fmt(lg.get('metrics_lag_median'), 0)},"
          f" max {fmt(lg.get('metrics_lag_max'), 0)} events")
    else:
        p("  end-to-end lag: not measured (no commit timestamps: track_commit_timestamp is off)")
    p("")

    rp = s.get("replay", {})
    p("Replay (hearthctl replay households: shadow tables from the archive/Kafka, then swap)")
    if "error" in rp or not rp:
        p(f"  not measured: {rp.get('error', 'phase did not run')}")
    else:
        srcs = {}
        for v in rp.get("sources", {}).values():
            srcs[v] = srcs.get(v, 0) + 1
        p(f"  {fmt(rp.get('events'))} events in {rp.get('seconds')} s ({fmt(rp.get('events_per_s'))} events/s); partitions read from "
          f"{', '.join(f'{k} ×{v}' for k, v in sorted(srcs.items())) or '?'}; Kafka log start > 0 on {rp.get('partitions_trimmed')}/6;"
          f" checksum {'identical' if rp.get('checksum_identical') else 'DIFFERENT'}; target 1,000,000 events < 60 s")
    p("")

    p("Memory (MiB): RSS idle after start-up (VmRSS) and peak over the whole bench (VmHWM); target < 60 MB (57.2 MiB) idle each")
    idle, load = s.get("rss_idle", {}), s.get("rss_load", {})
    notes = s.get("notes", {})
    for name in [k for k in idle if k != "wall_s"] or []:
        i, l = idle.get(name), load.get(name) if isinstance(load, dict) else None
        if f"not_started.{name}" in notes:
            p(f"  {name:<22} did not start: {notes[f'not_started.{name}']}")
            continue
        p(f"  {name:<22} idle {fmt(i and i['rss_mib'], 1):>7}   peak {fmt(l and l['hwm_mib'], 1):>7}"
          + (f"   ({i['processes']} processes)" if i and i.get("processes", 1) > 1 else ""))
    p("")
    text = "\n".join(out_lines)
    print(text)
    s["report"] = out_lines
    if args.out:
        save_state(args.out, s)
        print(f"results: {args.out}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--state", required=True)
    sub = ap.add_subparsers(dest="cmd", required=True)

    def common(sp, db=False, kafka=False):
        if db:
            sp.add_argument("--psql", required=True)
            sp.add_argument("--db", required=True)
        if kafka:
            sp.add_argument("--kafka", required=True)
            sp.add_argument("--kcat", default="kcat")
            sp.add_argument("--hearthctl", required=True)
            sp.add_argument("--run-id", type=int, default=int(time.time()) & 0xFFFF)
            sp.add_argument("--chunk", type=int, default=10_000)
            sp.add_argument("--watch", default="households,event_log,household_members",
                            type=lambda v: [x for x in v.split(",") if x])

    sp = sub.add_parser("machine")
    sp.add_argument("--build", default="release")
    sp.add_argument("--log-level", default="info")
    sp.set_defaults(fn=cmd_machine)
    sp = sub.add_parser("note")
    sp.add_argument("key")
    sp.add_argument("value")
    sp.set_defaults(fn=cmd_note)
    sp = sub.add_parser("rss")
    sp.add_argument("--key", required=True, choices=["rss_idle", "rss_load"])
    sp.add_argument("--pid", action="append", default=[], help="name=pid[,pid...]")
    sp.set_defaults(fn=cmd_rss)
    sp = sub.add_parser("http")
    common(sp, db=True)
    for a in ("--hearth", "--hid"):
        sp.add_argument(a, required=True)
    sp.add_argument("--peer", default="")
    sp.add_argument("--peer-hid", default="")
    sp.add_argument("--token", default="")
    sp.add_argument("--conc", default="1,16,64")
    sp.add_argument("--duration", type=int, default=10)
    sp.add_argument("--warmup", type=int, default=3)
    sp.add_argument("--search-path", default="/v1/rag/search/recipes?q=chicken%20tacos&k=8")
    sp.add_argument("--peer-search-path", default="/v1/rag/search/recipes?q=chicken%20tacos&k=8")
    sp.set_defaults(fn=cmd_http)
    sp = sub.add_parser("stream")
    sp.add_argument("--hearth", required=True)
    sp.add_argument("--hid", required=True)
    sp.add_argument("--peer", default="")
    sp.add_argument("--peer-hid", default="")
    sp.add_argument("--token", default="")
    sp.add_argument("--runs", type=int, default=200)
    sp.set_defaults(fn=cmd_stream)
    sp = sub.add_parser("pipeline")
    common(sp, db=True, kafka=True)
    sp.add_argument("--events", type=int, default=200_000)
    sp.set_defaults(fn=cmd_pipeline)
    sp = sub.add_parser("lag")
    common(sp, db=True, kafka=True)
    sp.add_argument("--rate", type=int, default=1000)
    sp.add_argument("--seconds", type=int, default=20)
    sp.add_argument("--metrics", required=True)
    sp.set_defaults(fn=cmd_lag)
    sp = sub.add_parser("replay")
    common(sp, db=True, kafka=True)
    sp.add_argument("--total", type=int, default=1_000_000)
    sp.set_defaults(fn=cmd_replay)
    sp = sub.add_parser("report")
    sp.add_argument("--out", default="")
    sp.set_defaults(fn=cmd_report)
    args = ap.parse_args()
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
