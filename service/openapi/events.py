"""The log's events: one schema per event type (its ``type`` a one-value enum, its ``data`` typed), in a union
discriminated by ``type``.  ``Event`` is valid for every game, the game's own parts in it (options, sign-up
fields, the order, setup and outcome records, the result) loosely typed; each game type's ``<Type>Event`` is the
same union with those parts typed by what its engine declares (``ExtremeWaysPhaseResolvedEvent``'s outcome is an
``ExtremeWaysOutcome``).  One function makes both from the parts it is given, so they cannot differ elsewhere.

The data of each event type is what the code records: game.created (service/commands.py, its options cut by
replays/views.py), player.joined, player.quit and gm.eject (service/membership.py: after the start an outcome and
what follows, replays/phases.what_follows), game.started and action.submitted (commands.py; a sealed order cut to
{phase, sealed}), phase.resolved (workers/resolution.py), the other GM actions (service/gm_actions.py) and
log.rolled_back (replays/loader.py).  tests/schema/test_event_schemas.py holds recorded and live games of every
type, as the GM, a player and the public see them, to these schemas closed: a field added or dropped fails."""
from __future__ import annotations

import copy
from typing import Any

from engines.contract import Engine
from engines.shapes import BOOLEAN, INTEGER, STRING, array, by, nullable, obj
from service import answers, schemas
from service.openapi.games import join_fields, shown_options
from service.openapi.parts import clean, converter, pascal, properties_of, ref

DATE_TIME = {"type": "string", "format": "date-time"}
# The event types whose data holds a game's own parts: each game type has its own schema of these.
GAME_SPECIFIC = ("game.created", "player.joined", "game.started", "action.submitted", "phase.resolved", "gm.eject",
                 "player.quit")


def event_name(kind: str, p: str = "") -> str:
    """``phase.resolved`` -> ``PhaseResolvedEvent``; with a game type's prefix, its own: ``ExtremeWaysPhase...``."""
    return f"{p if kind in GAME_SPECIFIC else ''}{pascal(kind)}Event"


def generic_parts() -> dict[str, dict[str, Any]]:
    """A game's own parts in the generic ``Event``: their shape, typed per game type by ``<Type>Event``."""
    return {
        "options": {"type": "object", "description": "The game type's options (typed by <Type>Event); those that fix "
                    "secret draws read \"hidden\" until the end, except to the GM."},
        "fields": {"type": "object", "description": "The game type's sign-up fields (typed by <Type>Event); private "
                   "ones only to that player, the GM, and everyone once the game is over."},
        "action": {**obj({"type": STRING}, description="The order as recorded, defaults filled in (typed by "
                          "<Type>Event)."), "additionalProperties": True},
        "record": ref("OutcomeRecord"),
        "result": {"type": "object", "description": "The game's result (typed by <Type>Event)."},
    }


def outcome_record() -> dict[str, Any]:
    """The shape every setup and outcome record shares (engines/contract.py), cut to what the viewer may see."""
    return obj({"public": {"type": "object", "description": "Everyone's part, at once."}}, {
        "private": by("player id or team viewer", {"type": "object", "description": "That player's (or team's) "
                                                   "part: to them and the GM."}),
        "secret": {"type": "object", "description": "The GM's until the end."},
        "closes_phase": {**BOOLEAN, "description": "A membership change's: it closes the open phase."}},
        "A setup or outcome record (typed per game type: <Type>Outcome).")


def typed_parts(engine: Engine, p: str) -> dict[str, dict[str, Any]]:
    """A game type's own parts: its options (as shown), sign-up fields, orders, outcome records and result."""
    orders = {a.name: f"#/components/schemas/{p}{pascal(a.name)}" for a in engine.actions.values()}
    return {
        "options": ref(shown_options(engine)),
        "fields": join_fields(engine),
        "action": {"oneOf": [{"$ref": target} for target in orders.values()], "description": "The order as "
                   "recorded, defaults filled in.", "discriminator": {"propertyName": "type", "mapping": orders}},
        "record": ref(f"{p}Outcome"),
        "result": ref(f"{p}Result"),
    }


def _described(schema: dict[str, Any], text: str) -> dict[str, Any]:
    """``schema`` with a description of its own (beside a $ref, in allOf: OpenAPI 3.0 ignores a $ref's siblings)."""
    return {"allOf": [schema], "description": text} if "$ref" in schema else {**schema, "description": text}


def _datas(part: dict[str, dict[str, Any]]) -> dict[str, tuple[dict[str, Any], str]]:
    """Each event type's data, and what the event says."""
    created, reason = properties_of(schemas.CreateGameSchema), properties_of(schemas.ReasonSchema)["reason"]
    phase, opened = {**INTEGER, "description": "The number of the phase it was sent in."}, ref("OpenedPhase")
    follows = {"next": {"allOf": [opened], "nullable": True, "description": "The phase it opens; null: the game is "
                        "over."}, "result": _described(part["result"], "With next null: the game's result."),
               "seed": nullable({**STRING, "description": "With next null: the seed, revealed (null to others than "
                                 "the GM where the log stays closed at the end)."})}
    member = {"outcome": _described(part["record"], "After the start: the game's ruling on it."), **follows}
    order = obj({"phase": phase, "action": part["action"]}, {
        "teams": {**array(STRING), "description": "The team viewers who may see it (an order its team sees)."},
        "entered_by": {"type": "string", "enum": ["gm"], "description": "The GM entered it for the player."}})
    return {
        "game.created": (obj({
            "game_id": STRING, "type": STRING, "version": STRING, "name": created["name"], "options": part["options"],
            "deadlines": created["deadlines"], "resolve_early": created["resolve_early"],
            "seed_commitment": {**STRING, "description": "sha256 of the seed."}},
            {"reveal_at_end": {**created["reveal_at_end"], "description": "Left out by logs from before the choice: "
                               "everything."}}), "The game, as created."),
        "player.joined": (obj({"player_id": STRING, "name": properties_of(schemas.JoinNameSchema)["name"],
                               "fields": part["fields"]}, member), "A player signed up (after the start: joined)."),
        "game.started": (obj({"setup": _described(part["record"], "The setup drawn."), "phase": opened}),
                         "Sign-up closed and the first phase opened."),
        "action.submitted": ({"oneOf": [order, ref("SealedOrder")], "description": "The order, or (a sealed one "
                              "of another player) only the phase it was sent in."}, "An order."),
        "phase.resolved": (obj({"number": INTEGER, "name": nullable(STRING), "outcome": part["record"],
                                "trigger": {**STRING, "description": "What closed it: deadline, early (every order "
                                            "in), gm (gm.resolve_now) ..."}, "next": follows["next"]},
                               {"result": follows["result"], "seed": follows["seed"]}), "A phase resolved."),
        "gm.extend_deadline": (obj({"reason": reason, "phase": phase, "previous": DATE_TIME, "deadline": DATE_TIME}),
                               "The GM moved the open phase's deadline."),
        "gm.resolve_now": (obj({"reason": reason, "phase": phase}), "The GM resolves the open phase now."),
        "gm.pause": (obj({"reason": reason, "remaining": {**INTEGER, "description": "Seconds the phase had left."}}),
                     "The GM paused the game."),
        "gm.resume": (obj({"reason": reason, "deadline": nullable(DATE_TIME)}), "The GM resumed the game."),
        "gm.eject": (obj({"player_id": STRING, "reason": reason}, member), "The GM ejected a player."),
        "player.quit": (obj({"player_id": STRING}, member), "A player left the game."),
        "log.rolled_back": (obj({"from_seq": INTEGER, "to_seq": INTEGER}), "The store lost the events after "
                            "to_seq up to from_seq (a Redis rollback): orders among them must be sent again."),
    }


def _event(envelope: dict[str, Any], kind: str, data: dict[str, Any], says: str) -> dict[str, Any]:
    event = copy.deepcopy(envelope)
    event["properties"]["type"] = {"type": "string", "enum": [kind]}
    event["properties"]["data"] = data
    event["description"] = f"{kind}: {says}"
    return event


def _union(names: dict[str, str], description: str) -> dict[str, Any]:
    mapping = {kind: f"#/components/schemas/{name}" for kind, name in names.items()}
    return {"oneOf": [{"$ref": target} for target in mapping.values()], "description": description,
            "discriminator": {"propertyName": "type", "mapping": mapping}}


def event_schemas(generic: dict[str, dict[str, Any]], engines: list[Engine]) -> dict[str, dict[str, Any]]:
    """The events' components: the generic ``Event`` union and its members, and per game type ``<Type>Event``,
    ``<Type>EventsPage`` and ``<Type>Replay`` (``generic``: the components so far, with the generic EventsPage,
    Replay and ReplayFrame)."""
    page, replay, frame = generic["EventsPage"], generic["Replay"], generic["ReplayFrame"]
    envelope = clean(converter().schema2jsonschema(answers.EventSchema))
    envelope.pop("additionalProperties", None)  # answers may grow new fields
    out = {"OutcomeRecord": outcome_record(), "SealedOrder": obj({"phase": INTEGER, "sealed": {
        **BOOLEAN, "description": "Always true."}}, description="Another player's sealed order: only its phase, "
        "until the game is over (its sender reads \"sealed\").")}
    kinds = list(answers.EVENT_TYPES)
    for kind, (data, says) in _datas(generic_parts()).items():
        out[event_name(kind)] = _event(envelope, kind, data, says)
    out["Event"] = _union({kind: event_name(kind) for kind in kinds}, "An event of the log, by its type (any game "
                          "type; <Type>Event types the game's own parts).")
    for engine in engines:
        p = pascal(engine.meta.name)
        datas = _datas(typed_parts(engine, p))
        for kind in GAME_SPECIFIC:
            out[event_name(kind, p)] = _event(envelope, kind, *datas[kind])
        out[f"{p}Event"] = _union({kind: event_name(kind, p) for kind in kinds}, f"An event of the log of a game "
                                  f"of {engine.meta.title}, by its type.")
        typed_page = copy.deepcopy(page)
        typed_page["properties"]["events"]["items"] = ref(f"{p}Event")
        out[f"{p}EventsPage"] = typed_page
        out.update(_typed_replay(replay, frame, p))
    return out


def _typed_replay(replay: dict[str, Any], frame: dict[str, Any], p: str) -> dict[str, dict[str, Any]]:
    """``<Type>Replay`` and ``<Type>ReplayFrame``: the generic ones with the game type's events and games."""
    typed_frame, typed_replay = copy.deepcopy(frame), copy.deepcopy(replay)
    for schema in (typed_frame, typed_replay):
        for name, target, may_be_null in (("event", f"{p}Event", False), ("view", f"{p}Game", True)):
            said = schema["properties"][name].get("description")
            schema["properties"][name] = {"allOf": [ref(target)], **({"nullable": True} if may_be_null else {}),
                                          **({"description": said} if said else {})}
    typed_replay["properties"]["frames"]["items"] = ref(f"{p}ReplayFrame")
    return {f"{p}ReplayFrame": typed_frame, f"{p}Replay": typed_replay}
