"""Benchmark 3: folding and auditing a long bot-played game of every engine, against
decoding the same events' JSON alone."""
from __future__ import annotations

import json
from typing import Any

import orjson

from bench.common import Stack, best_of, say
from bench.report import row
from engines import registry
from eventlog import keys
from replays.audit import audit
from replays.fold import fold
from service import simulate

FOLD_TARGET = 0.3
AUDIT_TARGET = 2.0


def pick_case(engine: Any, quick: bool) -> dict[str, Any]:
    """The engine's simulation case with the most players (the longest game); the fewest with --quick."""
    choose = min if quick else max
    return choose(engine.simulation_cases, key=lambda case: case["players"])


def _measure(ctx: Any, engine: Any, repeats: int, quick: bool) -> dict[str, Any]:
    """Play the engine's largest simulation case through the real store and worker, then
    time decoding, folding and auditing its events (best of ``repeats``)."""
    case = pick_case(engine, quick)
    options = dict(case.get("options", {}))
    played = simulate.run(ctx, engine.meta.name, case["players"], f"bench-{engine.meta.name}", options, echo=None)
    if not played["audit_ok"]:
        raise RuntimeError(f"{engine.meta.name}: the simulated game does not audit clean")
    game_id = played["game_id"]
    raw = [fields[b"e"] for _id, fields in ctx.redis.xrange(keys.events(game_id))]
    events = [orjson.loads(r) for r in raw]
    seed = ctx.loader.load(game_id)["seed"]
    n = len(events)
    json_s, _ = best_of(repeats, lambda: [json.loads(r) for r in raw])
    orjson_s, _ = best_of(repeats, lambda: [orjson.loads(r) for r in raw])
    fold_s, record = best_of(repeats, lambda: fold(events))
    audit_s, report = best_of(max(1, repeats // 2), lambda: audit(events, seed))
    if record["status"] != "finished" or not report["ok"]:
        raise RuntimeError(f"{engine.meta.name}: fold ({record['status']}) or audit failed: "
                           f"{report['divergences'][:2]}")
    return {
        "game_id": game_id, "players": case["players"], "options": options, "events": n,
        "payload_bytes": sum(len(r) for r in raw),
        "decode_json_per_s": n / json_s, "decode_orjson_per_s": n / orjson_s,
        "fold_per_s": n / fold_s, "audit_per_s": n / audit_s,
        "fold_ms": fold_s * 1000, "audit_ms": audit_s * 1000,
        "fold_ratio_json": json_s / fold_s, "fold_ratio_orjson": orjson_s / fold_s,
        "audit_over_fold": audit_s / fold_s, "outcomes_checked": report["outcomes"]["checked"],
    }


def run(stack: Stack, quick: bool) -> dict[str, Any]:
    ctx = stack.context()
    repeats = 1 if quick else 5
    result: dict[str, Any] = {"engines": {}}
    summary = []
    for engine in registry.all_latest():
        figures = _measure(ctx, engine, repeats, quick)
        n = figures["events"]
        result["engines"][engine.meta.name] = figures
        say(f"  {engine.meta.name}: {n} events; fold {figures['fold_per_s']:,.0f}/s, json.loads "
            f"{figures['decode_json_per_s']:,.0f}/s, orjson {figures['decode_orjson_per_s']:,.0f}/s, "
            f"audit {figures['audit_over_fold']:.2f}x fold")
        summary.append(row(f"fold {engine.meta.name} ({n} events)", figures["fold_per_s"], "events/s",
                           figures["decode_json_per_s"], figures["fold_ratio_json"], f">= {FOLD_TARGET}",
                           figures["fold_ratio_json"] >= FOLD_TARGET,
                           f"vs orjson {figures['decode_orjson_per_s']:,.0f}/s: {figures['fold_ratio_orjson']:.2f}"))
        summary.append(row(f"audit {engine.meta.name}", figures["audit_ms"], "ms", figures["fold_ms"],
                           figures["audit_over_fold"], f"<= {AUDIT_TARGET}",
                           figures["audit_over_fold"] <= AUDIT_TARGET, "baseline: the fold's time"))
    result["summary"] = summary
    return result
