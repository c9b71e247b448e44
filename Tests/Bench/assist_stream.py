#!/usr/bin/env python3
"""Latency of an assist run end to end: POST /v1/assist/stream until `done`, through gateway ->
Kafka -> assist-orchestrator -> Kafka -> gateway. Needs a running stack (`make run`, or release
binaries with HEARTH_ENV=dev|test for the dev sign-in) started with a quota and rate limit high
enough for the run count (HEARTH_MONTHLY_QUOTA, HEARTH_RATE_LIMIT_PER_MIN).

    Tests/Bench/assist_stream.py [--url http://127.0.0.1:8080] [--runs 200] [--mode meals] [--days 7]

Runs one at a time over one keep-alive connection, after a few warm-up runs, and prints the
percentiles of the client's wall time and of the orchestrator's own `elapsed_ms`."""
import argparse, http.client, json, statistics, time, urllib.parse

parser = argparse.ArgumentParser()
parser.add_argument("--url", default="http://127.0.0.1:8080")
parser.add_argument("--runs", type=int, default=200)
parser.add_argument("--warmup", type=int, default=5)
parser.add_argument("--mode", default="meals", choices=["meals", "chores", "routines"])
parser.add_argument("--days", type=int, default=7)
args = parser.parse_args()

url = urllib.parse.urlparse(args.url)
connection = http.client.HTTPConnection(url.hostname, url.port or 80)

def call(method, path, body=None, headers=None):
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers or {})
    response = connection.getresponse()
    return response.status, response.read()

status, body = call("POST", "/v1/auth/dev", {"name": f"bench-{time.time_ns()}"})
assert status == 200, (status, body)
headers = {"Authorization": "Bearer " + json.loads(body)["jwt"], "Content-Type": "application/json"}
prefs = {"adults": 2, "kidsAges": [4, 9], "allergies": ["peanuts"], "cuisines": ["italian", "mexican"]}
status, body = call("POST", "/v1/households/upsert", {"name": "Bench family", "prefs": prefs}, headers)
assert status == 200, (status, body)
time.sleep(1)  # let the household be projected, so runs plan for it

stream_headers = dict(headers, Accept="application/x-ndjson")
request = {"goal": "quick family dinners", "mode": args.mode, "days": args.days}
wall, orchestrator = [], []
for index in range(args.warmup + args.runs):
    started = time.perf_counter()
    status, body = call("POST", "/v1/assist/stream", request, stream_headers)
    elapsed = (time.perf_counter() - started) * 1000
    assert status == 200, (status, body[:300])
    done = json.loads(body.decode().rstrip("\n").split("\n")[-1])
    assert done["event"] == "done", done
    assert done["data"].get("outcome") == "succeeded", done
    if index >= args.warmup:
        wall.append(elapsed)
        orchestrator.append(done["elapsed_ms"])

def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]

print(f"{args.runs} {args.mode} runs ({args.days} days): p50 {statistics.median(wall):.2f} ms, "
      f"p90 {percentile(wall, 0.9):.2f} ms, p99 {percentile(wall, 0.99):.2f} ms, min {min(wall):.2f} ms; "
      f"orchestrator p50 {statistics.median(orchestrator)} ms")
