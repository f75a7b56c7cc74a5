"""Orders with signed receipts (issue 29) against the bare baseline, in the same rounds as benchmark 1.

Signing is another piece of work: until the tree has it, this row is skipped and says what is
missing (checked on the running API, not assumed: ``GET /v1/keys`` answers, and an order's
receipt carries the signed ``note``).  The API is told where its key lives through
``ARBITER_SIGNING_KEY``, a file in the run's own folder, as issue 29 names the setting.
"""
from __future__ import annotations

from typing import Any

from bench.common import Stack, say
from bench.games import bot_orders, make_game
from bench.orders import TARGET, _requests, _rounds, _warm
from bench.report import row, skipped

MEASURE = "POST actions with signed receipts"


def missing(stack: Stack, api: Any) -> str | None:
    """Why this tree cannot sign receipts, or None when it can."""
    status, _body = api.call("GET", "/v1/keys")
    if status != 200:
        return f"signed receipts (issue 29) are not in this tree: GET /v1/keys answers {status}"
    ctx = stack.context()
    game = make_game(ctx, "extreme-ways", 4)
    player, order = next((p, o) for p, o in sorted(bot_orders(ctx, game).items()))
    status, body = api.call("POST", f"/v1/games/{game.game_id}/actions", order, token=game.tokens[player])
    if status != 202:
        raise RuntimeError(f"receipts: an order failed: {status} {body}")
    if not isinstance(body, dict) or "note" not in body.get("receipt", body):
        return "signed receipts (issue 29) are not in this tree: an order's receipt carries no signed 'note'"
    return None


def run(stack: Stack, quick: bool, result: dict[str, Any]) -> None:
    key = {"ARBITER_SIGNING_KEY": str(stack.workdir / "signing.key")}
    real = stack.api("service.wsgi:app", name="api-signed", env=key)
    why = missing(stack, real)
    if why is not None:
        say(f"  receipts: skipped: {why}")
        result.update(skipped=why, summary=[skipped(MEASURE, f">= {TARGET}", why)])
        stack.stop(real.process)
        return
    games, threads = (4, 4) if quick else (100, 16)
    rounds, duration = ((1, 1), 0.6) if quick else ((1, 2), stack.budget.sized(3.0, 2.0))
    items = _requests(stack.context(), games)
    base = stack.api("bench.baseline_app:app", name="api-baseline")
    sides = {"baseline": (base, items), "full": (real, items)}
    _warm(stack, sides, threads, duration)
    figures = _rounds(stack, sides, rounds, duration, threads, "signed")
    stack.stop(real.process, base.process)
    ratio = figures["ratio"]
    result.update(games=games, threads=threads, signed=figures, summary=[
        row(MEASURE, figures["full_rps"]["median"], "req/s", figures["baseline_rps"]["median"], ratio["median"],
            f">= {TARGET}", ratio["median"] >= TARGET,
            f"AOF everysec; ratio range {ratio['min']:.2f}-{ratio['max']:.2f}"),
    ])
