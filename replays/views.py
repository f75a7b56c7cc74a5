"""What each caller may see: the one place hidden information is filtered.

Every path out (state, events, replay, export, errors) goes through here.  Sealed
orders are shown only to their author and the GM; setup and outcome records are cut
to their public part plus the viewer's private part; everything opens up once the
game is finished, unless its GM chose at creation that only what the rules reveal opens
(``reveal_at_end: "rulebook"``, ``opens_at_end``).
"""
from __future__ import annotations

from typing import Any

from engines.contract import GM, PUBLIC, Viewer, redact_outcome
from eventlog.events import Event
from replays.fold import MEMBERSHIP, Record, engine_for


# The actor shown for another's sealed order: whose orders are still missing is the phase's ``awaiting``.
SEALED_SENDER = "sealed"


def opens_at_end(record: Record) -> bool:
    """Whether the whole log opens to everyone once the game is finished (``reveal_at_end: "everything"``, the
    default, which lets anyone verify the game), or stays as each viewer saw it, the game's rules revealing what
    they reveal (``"rulebook"``: the audit, full export and seed stay the GM's)."""
    return record.get("reveal_at_end", "everything") == "everything"


def is_open(record: Record) -> bool:
    """Finished, and the whole log open to everyone."""
    return record.get("status") == "finished" and opens_at_end(record)


def viewer_of(role: dict[str, Any] | None) -> Viewer:
    if role is None:
        return PUBLIC
    return GM if role["role"] == "gm" else role["player_id"]


def event_for(record: Record, event: Event, viewer: Viewer) -> Event:
    """One event as ``viewer`` may see it, judged by the game as it stands now.

    An event shown cut keeps its hash but loses its salt: with the salt, the hidden part
    could be found by hashing every value it might have (eventlog/events.py)."""
    if viewer == GM or is_open(record):
        return event
    shown = _cut(record, event, viewer)
    if shown is event or shown == event:
        return event
    return {k: v for k, v in shown.items() if k != "salt"}


def teams_of(record: Record, viewer: Viewer) -> tuple[str, ...]:
    """The team viewers a player belongs to now (``Engine.teams``); none for the GM and the public."""
    if viewer is None or viewer == GM or record.get("engine") is None:
        return ()
    return engine_for(record).teams(record["engine"], viewer)


def _cut(record: Record, event: Event, viewer: Viewer) -> Event:
    kind = event["type"]
    data = event["data"]
    if kind == "action.submitted":
        spec = engine_for(record).actions.get(data["action"]["type"])
        if spec is not None and spec.sealed and event["actor"] != viewer and not (
                spec.team_sees and set(data.get("teams", ())) & set(teams_of(record, viewer))):
            # Even the order's type is hidden: "bid" against "pass" would tell who is bidding.  So is who sent it:
            # beside the phase's awaiting list, the sender of an order that settles nothing (Extreme Ways' gold
            # bought with garnets) would tell everyone that a private order was given, and by whom.
            return {**event, "actor": SEALED_SENDER, "data": {"phase": data["phase"], "sealed": True}}
        return event
    if kind == "game.created":
        return {**event, "data": {**data, "options": options_for(record, data["options"], viewer)}}
    if kind == "player.joined":
        fields = fields_for(record, data["player_id"], data["fields"], viewer)
        return {**event, "data": {**data, "fields": fields}}
    if kind == "game.started":
        return {**event, "data": {**data, "setup": redact_outcome(data["setup"], viewer, teams_of(record, viewer))}}
    if "outcome" in data and kind in ("phase.resolved", *MEMBERSHIP):
        engine = engine_for(record)
        shown = redact_outcome(data["outcome"], viewer, teams_of(record, viewer))
        if record.get("engine") is not None:
            shown = engine.shown_outcome(record["engine"], shown, viewer)
        if data.get("seed") is not None:  # the end of a game whose log stays closed: the seed is the GM's
            data = {**data, "seed": None}
        return {**event, "data": {**data, "outcome": shown}}
    return event


def game_for(record: Record, viewer: Viewer, seed: str | None = None) -> dict[str, Any]:
    """The body of ``GET /v1/games/{id}`` for ``viewer``."""
    engine = engine_for(record)
    state = record.get("engine")
    phase_view = None
    if record["phase"] is not None and state is not None:
        phase = engine.phase(state)
        if phase is not None:
            phase_view = {
                **phase.to_json(),
                "number": record["phase"]["number"],
                "deadline": record["phase"]["deadline"],
            }
            if record["status"] == "paused":
                phase_view["deadline"] = None
                phase_view["paused_remaining_seconds"] = record["paused"]["remaining"]
    body: dict[str, Any] = {
        "game_id": record["game_id"],
        "name": record.get("name"),
        "type": record["type"],
        "version": record["version"],
        "status": record["status"],
        "seq": record["seq"],
        "head_hash": record["head_hash"],
        "seed_commitment": record["seed_commitment"],
        "options": options_for(record, record["options"], viewer),
        "deadlines": record["deadlines"],
        "resolve_early": record["resolve_early"],
        "created_at": record["created_at"],
        "players": [
            {"id": p["id"], "name": p["name"], "fields": fields_for(record, p["id"], p["fields"], viewer),
             "ejected": p["ejected"], "left": p.get("left")}
            for p in record["players"]
        ],
        "phase": phase_view,
        "state": _state_view(record, viewer),
        "you": _you(record, viewer),
        "reveal_at_end": record.get("reveal_at_end", "everything"),
    }
    if record["status"] == "finished":
        body["result"] = record["result"]
        if viewer == GM or opens_at_end(record):
            body["seed"] = record["seed"]
    elif viewer == GM and seed is not None:
        body["seed"] = seed
    return body


def _state_view(record: Record, viewer: Viewer) -> Any:
    """The engine's view; of a finished game whose log stays closed, what its rules reveal (``closed_view``)."""
    state = record.get("engine")
    if state is None:
        return None
    engine = engine_for(record)
    if record["status"] == "finished" and viewer != GM and not opens_at_end(record):
        return engine.closed_view(state, viewer)
    return engine.view(state, viewer)


def options_for(record: Record, options: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    """Options minus those that fix secret draws (shown as "hidden"), unless GM or finished."""
    secret = engine_for(record).secret_options
    if viewer == GM or is_open(record) or not secret & set(options):
        return options
    return {k: ("hidden" if k in secret else v) for k, v in options.items()}


def fields_for(record: Record, player_id: str, fields: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    """A player's sign-up fields, minus the private ones for anyone but them and the GM."""
    private = engine_for(record).private_join_fields
    if viewer in (GM, player_id) or is_open(record):
        return fields
    return {k: v for k, v in fields.items() if k not in private}


def _you(record: Record, viewer: Viewer) -> dict[str, Any]:
    if viewer is PUBLIC:
        return {"role": "public"}
    if viewer == GM:
        return {"role": "gm"}
    return {"role": "player", "player_id": viewer, "teams": list(teams_of(record, viewer))}
