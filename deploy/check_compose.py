#!/usr/bin/env python3
"""Checks compose.yaml against the event catalogue (run by deploy/check-compose.sh).

- services: exactly the six Hearth services, kafka, postgres, kafka-init and jaeger (prometheus
  and grafana may be added);
- each Hearth service: built from deploy/Dockerfile, production env, Kafka at kafka:9092, a
  /readyz healthcheck, depends_on postgres/kafka healthy and kafka-init completed;
- kafka-init: the topics it creates (lines `create NAME PARTITIONS` of its script) are exactly
  the catalogue's topics with their partition counts plus `<name>.dlq` with 1 partition each,
  created with --if-not-exists and retention.ms=-1;
- tracing: a jaeger service with OTLP enabled, and every Hearth service's HEARTH_OTLP_ENDPOINT at
  http://jaeger:4318;
- with --prometheus: the scrape config's `hearth` job has one target per Hearth service, at the
  service's name and HEARTH_HTTP_PORT, labelled `service: <name>` (the dashboard filters on it).

Exit status 0 when all holds, 1 with one line per problem otherwise.
"""
import argparse
import json
import re
import sys

import yaml

HEARTH_SERVICES = [
    "gateway", "assist-orchestrator", "embedding-worker",
    "profile-extractor", "calendar-sync", "notifier",
]
INFRA_SERVICES = ["kafka", "postgres", "kafka-init", "jaeger"]
OPTIONAL_SERVICES = ["prometheus", "grafana"]
CREATE_LINE = re.compile(r"^\s*create\s+(\S+)\s+(\S+)\s*$", re.MULTILINE)


def as_dict(env):
    """compose environment: a mapping or a list of KEY=VALUE."""
    if env is None:
        return {}
    if isinstance(env, dict):
        return {str(k): "" if v is None else str(v) for k, v in env.items()}
    out = {}
    for item in env:
        key, _, value = str(item).partition("=")
        out[key] = value
    return out


def as_text(value):
    if value is None:
        return ""
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    return str(value)


def expected_topics(catalogue):
    topics = catalogue.get("topics")
    if not isinstance(topics, list) or not topics:
        raise ValueError('catalogue has no "topics" list')
    expected = {}
    for topic in topics:
        name, partitions = topic["name"], int(topic["partitions"])
        if name.endswith(".dlq"):
            raise ValueError(f"catalogue lists the dead-letter topic {name}; it must not")
        expected[name] = partitions
        expected[f"{name}.dlq"] = 1
    return expected


def check(compose, catalogue):
    problems = []
    services = compose.get("services") or {}

    missing = [s for s in HEARTH_SERVICES + INFRA_SERVICES if s not in services]
    unknown = [s for s in services if s not in HEARTH_SERVICES + INFRA_SERVICES + OPTIONAL_SERVICES]
    if missing:
        problems.append(f"services missing from compose.yaml: {', '.join(missing)}")
    if unknown:
        problems.append(f"unexpected services in compose.yaml: {', '.join(unknown)}")

    for name in HEARTH_SERVICES:
        svc = services.get(name)
        if not isinstance(svc, dict):
            continue
        build = svc.get("build")
        dockerfile = build.get("dockerfile") if isinstance(build, dict) else None
        if dockerfile != "deploy/Dockerfile":
            problems.append(f"{name}: must be built from deploy/Dockerfile (build.dockerfile)")
        env = as_dict(svc.get("environment"))
        for key, want in (("HEARTH_ENV", "production"), ("HEARTH_HTTP_HOST", "0.0.0.0"),
                          ("HEARTH_KAFKA_BOOTSTRAP", "kafka:9092")):
            if env.get(key) != want:
                problems.append(f"{name}: environment {key} must be {want!r}, is {env.get(key)!r}")
        if "@postgres:5432/" not in env.get("HEARTH_DATABASE_URL", ""):
            problems.append(f"{name}: HEARTH_DATABASE_URL must point at postgres:5432")
        if "/readyz" not in as_text((svc.get("healthcheck") or {}).get("test")):
            problems.append(f"{name}: healthcheck must probe /readyz")
        deps = svc.get("depends_on") or {}
        conditions = {
            "postgres": "service_healthy",
            "kafka": "service_healthy",
            "kafka-init": "service_completed_successfully",
        }
        for dep, condition in conditions.items():
            got = deps.get(dep, {}).get("condition") if isinstance(deps, dict) else None
            if got != condition:
                problems.append(f"{name}: depends_on {dep} must have condition {condition}, has {got!r}")

    # Tracing: every service exports its spans over OTLP/HTTP to the jaeger service.
    jaeger = services.get("jaeger")
    if isinstance(jaeger, dict) and as_dict(jaeger.get("environment")).get("COLLECTOR_OTLP_ENABLED") != "true":
        problems.append("jaeger: environment COLLECTOR_OTLP_ENABLED must be 'true'")
    for name in HEARTH_SERVICES:
        env = as_dict((services.get(name) or {}).get("environment"))
        if env.get("HEARTH_OTLP_ENDPOINT") != "http://jaeger:4318":
            problems.append(f"{name}: environment HEARTH_OTLP_ENDPOINT must be 'http://jaeger:4318', is {env.get('HEARTH_OTLP_ENDPOINT')!r}")

    gateway_ports = [str(p) for p in (services.get("gateway") or {}).get("ports") or []]
    if not any(p.endswith("8080") or p.endswith("8080/tcp") for p in gateway_ports):
        problems.append("gateway: must publish port 8080")

    init = services.get("kafka-init") or {}
    script = as_text(init.get("entrypoint")) + "\n" + as_text(init.get("command"))
    for needle in ("kafka-topics.sh", "--if-not-exists", "retention.ms=-1"):
        if needle not in script:
            problems.append(f"kafka-init: its script must use {needle}")

    created = {}
    for topic, partitions in CREATE_LINE.findall(script):
        if topic in created:
            problems.append(f"kafka-init: topic {topic} is created twice")
        try:
            created[topic] = int(partitions)
        except ValueError:
            problems.append(f"kafka-init: topic {topic} has a non-numeric partition count {partitions!r}")
    expected = expected_topics(catalogue)

    for topic in sorted(set(expected) - set(created)):
        problems.append(f"kafka-init: missing `create {topic} {expected[topic]}`")
    for topic in sorted(set(created) - set(expected)):
        problems.append(f"kafka-init: creates {topic}, which the catalogue does not have")
    for topic in sorted(set(created) & set(expected)):
        if created[topic] != expected[topic]:
            problems.append(
                f"kafka-init: {topic} has {created[topic]} partitions, the catalogue says {expected[topic]}")
    return problems, expected


def check_prometheus(compose, config):
    """Problems of the scrape config's `hearth` job against the compose services' ports."""
    problems = []
    jobs = [job for job in (config or {}).get("scrape_configs") or [] if job.get("job_name") == "hearth"]
    if len(jobs) != 1:
        return ["prometheus: exactly one scrape job must be named hearth"]
    job = jobs[0]
    if job.get("metrics_path", "/metrics") != "/metrics":
        problems.append("prometheus: the hearth job must scrape /metrics")
    scraped = {}
    for group in job.get("static_configs") or []:
        service = (group.get("labels") or {}).get("service")
        for target in group.get("targets") or []:
            if service is None:
                problems.append(f"prometheus: target {target} has no service label")
            elif service in scraped:
                problems.append(f"prometheus: service {service} is scraped twice")
            else:
                scraped[service] = str(target)
    services = compose.get("services") or {}
    for name in HEARTH_SERVICES:
        port = as_dict((services.get(name) or {}).get("environment")).get("HEARTH_HTTP_PORT")
        expected = f"{name}:{port}"
        if name not in scraped:
            problems.append(f"prometheus: {name} is not scraped (expected target {expected})")
        elif scraped[name] != expected:
            problems.append(f"prometheus: {name} is scraped at {scraped[name]}, but it listens at {expected}")
    for name in sorted(set(scraped) - set(HEARTH_SERVICES)):
        problems.append(f"prometheus: the hearth job scrapes {name}, which is not a Hearth service")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compose", required=True)
    parser.add_argument("--catalogue", required=True, help="output of `hearthctl catalogue --json`")
    parser.add_argument("--prometheus", help="the Prometheus scrape config to check against the services")
    args = parser.parse_args()

    with open(args.compose, encoding="utf-8") as f:
        compose = yaml.safe_load(f)
    try:
        with open(args.catalogue, encoding="utf-8") as f:
            catalogue = json.load(f)
    except (OSError, json.JSONDecodeError) as err:
        print(f"[check-compose] error: cannot read the catalogue ({err}); "
              "`hearthctl catalogue --json` must print "
              '{"topics":[{"name":...,"partitions":...}],"events":[...]}', file=sys.stderr)
        return 1

    try:
        problems, expected = check(compose, catalogue)
    except (KeyError, TypeError, ValueError) as err:
        print(f"[check-compose] error: malformed catalogue: {err}", file=sys.stderr)
        return 1

    if args.prometheus:
        with open(args.prometheus, encoding="utf-8") as f:
            problems += check_prometheus(compose, yaml.safe_load(f))

    if problems:
        for problem in problems:
            print(f"[check-compose] error: {problem}", file=sys.stderr)
        if any(problem.startswith("kafka-init") for problem in problems):
            print("[check-compose] the kafka-init lines the catalogue asks for:", file=sys.stderr)
            for topic, partitions in expected.items():
                print(f"        create {topic} {partitions}", file=sys.stderr)
        print(f"[check-compose] FAILED: {len(problems)} problem(s) in compose.yaml", file=sys.stderr)
        return 1
    print(f"[check-compose] ok: {len(compose['services'])} services; kafka-init creates all "
          f"{len(expected)} topics of the catalogue ({len(expected) // 2} topics + their dead-letter topics)"
          + ("; Prometheus scrapes all six services" if args.prometheus else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
