-- wrk script of `make bench` (deploy/bench/driver.py runs wrk with it).
-- Environment: BENCH_METHOD (GET), BENCH_BODY (JSON body, optional), BENCH_TOKEN (bearer token,
-- optional), BENCH_HEADER (one more request header, `Name: value`, optional), BENCH_VARY_QUERY (1: append "%20<n>" to the path's `q` parameter, n new on every
-- request, so no two requests ask the same query). When wrk is done, one line `BENCH_JSON {...}`
-- carries the counts and the latency distribution (microseconds) for the driver to parse.
local method = os.getenv("BENCH_METHOD") or "GET"
local body = os.getenv("BENCH_BODY") or ""
local token = os.getenv("BENCH_TOKEN") or ""

wrk.method = method
if body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end
if token ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. token
end
local header = os.getenv("BENCH_HEADER") or ""
if header ~= "" then
  local name, value = header:match("^([^:]+):%s*(.*)$")
  if name then wrk.headers[name] = value end
end

if os.getenv("BENCH_VARY_QUERY") == "1" then
  -- Each thread has its own Lua state: a random start keeps the threads' numbers apart.
  local counter = 0
  function init(args)
    math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)
    counter = math.random(1, 1000000000)
  end
  function request()
    counter = counter + 1
    local path = wrk.path:gsub("([?&]q=[^&]*)", "%1%%20" .. counter, 1)
    return wrk.format(nil, path)
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"bytes":%d,"errors_connect":%d,"errors_read":%d,' ..
    '"errors_write":%d,"errors_status":%d,"errors_timeout":%d,"mean_us":%.1f,"max_us":%d,' ..
    '"p50_us":%d,"p90_us":%d,"p99_us":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency.max, latency:percentile(50), latency:percentile(90), latency:percentile(99)))
end
