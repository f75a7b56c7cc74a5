"""``arbiter simulate``: bots play a whole game through the real store and a real worker.

Every order goes through the same commands as the API (validation, conditional
append), and every phase is resolved by an RQ worker, so a simulation exercises the
whole path except HTTP.  The worker is this process's own, on a queue of its own
(``<ARBITER_QUEUE>-simulate-<random>``): beside a running ``arbiter up`` on the same Redis,
``up``'s worker would otherwise take the simulation's jobs while the simulation looked
for its phase resolved.  What the simulation leaves on its queue is deleted at the end;
a game it could not finish is paused, so nobody's deadlines run it on without its bots.
"""
from __future__ import annotations

import secrets
from dataclasses import replace
from typing import Any, Callable

from rq.job import Job
from rq.registry import (CanceledJobRegistry, DeferredJobRegistry, FinishedJobRegistry, ScheduledJobRegistry,
                         StartedJobRegistry)

from engines import registry
from engines.rng import Rng
from replays.audit import audit
from replays.fold import engine_for
from service import commands
from service.auth import KnownTokens
from runtime.context import Context, using
from service.errors import ApiError
from workers.runner import run_burst


def run(ctx: Context, game_type: str, players: int, seed: str, options: dict[str, Any],
        echo: Callable[[str], Any] | None = print, max_phases: int = 5000,
        interrupts: dict[int, list[dict[str, Any]]] | None = None,
        fields: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """``interrupts``: orders sent as phase N opens, before the bots', keyed by N: a GM's ruling
    (``gm.eject``) or a player's ``quit`` (``{"type": "quit", "player": "p2"}``), for recorded games.
    ``fields``: each player's sign-up fields (default: the engine's simulation case for that many players)."""
    own = Context(replace(ctx.settings, queue_name=f"{ctx.settings.queue_name}-simulate-{secrets.token_hex(4)}"))
    with using(own):  # the jobs this process runs schedule the next phases on the simulation's queue
        try:
            return _play(own, game_type, players, seed, options, echo or (lambda _text: None), max_phases,
                         interrupts or {}, fields)
        finally:
            _clear_queue(own)


def _play(ctx: Context, game_type: str, players: int, seed: str, options: dict[str, Any], say: Callable[[str], Any],
          max_phases: int, interrupts: dict[int, list[dict[str, Any]]],
          fields: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    engine = registry.latest(game_type)
    if engine is None:
        raise ApiError(422, "unknown_type", f"Unknown game type {game_type!r}; known: {', '.join(registry.names())}.")
    created = commands.create_game(ctx, {"type": game_type, "options": options, "seed": seed, "resolve_early": True})
    game_id = created["game_id"]
    gm = created["gm_token"]
    tokens: dict[str, str] = {"gm": gm}
    known = KnownTokens()

    def send(token: str | None, body: dict[str, Any]) -> commands.Sender:
        return commands.sender(ctx, game_id, token, body, known=known)

    fields = fields or _fields_for(engine, players)
    for index in range(players):
        joined = commands.join(send(gm if fields[index] else None, {"name": f"Bot {index + 1}", **fields[index]}))[1]
        tokens[joined["player_id"]] = joined["token"]
    commands.start(send(gm, {}))
    say(f"game {game_id}: {engine.meta.title}, {players} bots, seed commitment {created['seed_commitment'][:12]}…")
    for _ in range(max_phases):
        record = ctx.loader.load(game_id)
        if record["status"] == "finished":
            break
        number = record["phase"]["number"]
        for order in interrupts.pop(number, []):
            who = order.get("player", "gm")
            commands.act(send(tokens[who], {k: v for k, v in order.items() if k != "player"}))
            say(f"  {who}: {order['type']}")
        record = ctx.loader.load(game_id)
        if record["status"] == "finished":
            break
        if record["phase"]["number"] != number:
            continue  # the change closed the phase
        phase = engine_for(record).phase(record["engine"])
        bots = Rng(seed, "bots", number)
        for actor in phase.awaiting:
            action = engine.bot_action(ctx.loader.load(game_id)["engine"], actor, bots.fork(actor))
            if action is not None:
                try:
                    commands.act(send(tokens.get(actor, gm), _as_request(action, actor)))
                except ApiError as exc:
                    say(f"  bot {actor} order refused: {exc.message}")
        record = ctx.loader.load(game_id)
        if record["phase"] and record["phase"]["number"] == number:
            still = engine_for(record).phase(record["engine"])
            if still is not None and still.awaiting:
                commands.act(send(gm, {"type": "gm.resolve_now", "reason": "simulation: bots are done"}))
        run_burst(ctx)
        after = ctx.loader.load(game_id)
        if after["status"] != "finished" and after["phase"] is not None and after["phase"]["number"] == number:
            # Every order is in and the GM forced it: another round would fail the same way.
            say(f"  phase {number} ({phase.name}) was NOT resolved: its resolution job failed or never ran "
                "(see the worker's log above)")
            break
        say(f"  phase {number} ({phase.name}) resolved")
    record = ctx.loader.load(game_id)
    finished = record["status"] == "finished"
    revealed = record.get("seed") or ctx.store.private_field(game_id, "seed")  # at the end; the GM's before
    report = audit(ctx.store.read(game_id), revealed)
    if not finished and record["status"] == "running":
        _pause(send(gm, {"type": "gm.pause", "reason": "simulation stopped unfinished"}), game_id, say)
    say(f"{'finished' if finished else 'STOPPED UNFINISHED'} after {record['seq']} events; "
        f"audit {'ok' if report['ok'] else 'FAILED'}")
    return {"game_id": game_id, "result": record.get("result"), "audit_ok": report["ok"], "events": record["seq"],
            "finished": finished}


def _pause(pause: commands.Sender, game_id: str, say: Callable[[str], Any]) -> None:
    """A game the bots stopped playing is paused: its deadlines would otherwise play it on with nobody's orders."""
    try:
        commands.act(pause)
        say(f"game {game_id} paused")
    except ApiError as exc:
        say(f"game {game_id} could not be paused: {exc.message}")


def _clear_queue(ctx: Context) -> None:
    """Delete the simulation's queue and its jobs, queued and scheduled (the next deadlines of a game it stopped);
    nothing else reads that queue.  Failed jobs stay in their registry for a week, to be looked at."""
    connection = ctx.queue_redis
    for queue in (ctx.queue, ctx.webhook_queue):
        for kind in (ScheduledJobRegistry, FinishedJobRegistry, StartedJobRegistry, DeferredJobRegistry,
                     CanceledJobRegistry):
            registry_of_kind = kind(queue=queue)
            for job_id in registry_of_kind.get_job_ids():
                Job(job_id, connection=connection).delete(remove_from_queue=False)
            connection.delete(registry_of_kind.key)
        queue.delete(delete_jobs=True)


def _fields_for(engine: Any, players: int) -> list[dict[str, Any]]:
    for case in engine.simulation_cases:
        if case.get("players") == players and case.get("fields"):
            return [dict(f) for f in case["fields"]]
    return [{} for _ in range(players)]


def _as_request(action: dict[str, Any], actor: str) -> dict[str, Any]:
    return action if actor == "gm" else {**action}
