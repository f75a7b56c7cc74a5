"""The engine contract: what every game offers the platform, and nothing more.

An engine is pure: plain JSON data in, plain JSON data out; no I/O, clock or global
random.  The platform owns sign-up, tokens, deadlines, pausing and the log; the engine
owns the rules.  The fold of a game's log is::

    setup   = engine.setup(options, players, Rng(seed, "setup"))      # recorded
    state   = engine.initial_state(options, players, setup)
    for each event:  state = engine.apply_action(state, actor, action)   # orders
                     state = engine.apply_outcome(state, outcome)        # resolutions
    outcome = engine.resolve(state, Rng(seed, "phase", number))          # recorded

A player joining after the start, quitting or being ejected is a membership change, folded the
same way: ``change_members`` gives its recorded outcome, ``apply_members`` folds it.

Every random draw is written into the recorded ``setup`` / ``outcome`` so a replay
never re-draws; the audit re-draws and compares.

Outcomes (and setup records) share one shape so the platform can redact them for any
viewer without knowing the game::

    {"public": {...},                 # everyone, at once
     "private": {player_id: {...}},   # that player (and the GM), at once
     "secret": {...}}                 # the GM only, until the game ends

Viewers are a player id, ``GM`` or ``PUBLIC`` (None).  A player also sees what is addressed to
each of their ``teams`` (a team viewer such as ``"team:fire"``): private parts keyed by it, and
the orders of team-mates whose action type is ``team_sees``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, NamedTuple

from marshmallow import Schema

from engines.rng import Rng

JSON = Any
State = dict[str, Any]
Viewer = str | None

GM = "gm"
PUBLIC: Viewer = None


@dataclass(frozen=True)
class Meta:
    """Declarative facts about a game, shown to clients in ``GET /v1/game-types``."""

    name: str
    version: str
    title: str
    min_players: int
    max_players: int
    turn_based: bool
    hidden_information: bool
    summary: str = ""
    late_joins: bool = False  # players may join after the start (where the rules say when: ``change_members``)


@dataclass(frozen=True)
class ActionType:
    """One kind of order.  ``schema`` validates the fields besides ``type``.

    ``sealed`` orders are visible only to their author and the GM until the game ends
    (outcomes publish whatever the rules reveal earlier); with ``team_sees`` the author's
    team-mates see them too.  ``actor`` says who may send it; GM actions are named with a
    ``gm.`` prefix.  ``phases`` names the phases it belongs to (empty: any); the platform's
    gate refuses it in any other.
    """

    name: str
    schema: type[Schema]
    actor: Literal["player", "gm"] = "player"
    sealed: bool = False
    team_sees: bool = False
    phases: tuple[str, ...] = ()
    description: str = ""
    example: Mapping[str, Any] = field(default_factory=dict)


class Phase(NamedTuple):
    """The phase a game is in.

    ``name`` keys the game's deadlines (``{"bidding": 86400}``).  ``actors`` may act
    now (the platform's gate refuses anyone else before the engine is asked);
    ``awaiting`` are those whose orders are still missing (when it is empty the
    phase may resolve early).  ``sealed`` phases take simultaneous secret orders that
    a player may replace until the deadline.

    A named tuple: immutable, and made in a fifth of a frozen dataclass's time (1.4 -> 0.3 us), for the gate asks
    an engine for its phase at every order, and an audit at every recorded one.
    """

    name: str
    actors: tuple[str, ...]
    awaiting: tuple[str, ...]
    sealed: bool
    round: int | None = None
    prompt: str = ""

    def to_json(self) -> dict[str, Any]:
        return {**self._asdict(), "actors": list(self.actors), "awaiting": list(self.awaiting)}


class RuleError(Exception):
    """An order the rules do not allow.  ``rule`` names the rule, for the player.

    ``status`` is 422 for an invalid order and 409 for one that is not allowed *now*
    (out of turn, wrong phase).  Messages must never reveal another player's secrets.
    """

    def __init__(
        self,
        rule: str,
        message: str,
        details: Mapping[str, Any] | None = None,
        status: int = 422,
    ) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.details = dict(details or {})
        self.status = status


def not_now(rule: str, message: str, details: Mapping[str, Any] | None = None) -> RuleError:
    """A RuleError for orders that are valid in form but not allowed at this moment."""
    return RuleError(rule, message, details, status=409)


class Engine:
    """Base class for engines: subclasses set the class attributes and rule methods.

    Players are given as ``[{"id": "p1", "name": "Ann", "fields": {...}}, ...]`` in
    join order; ``fields`` are the type-specific sign-up fields of ``join_schema``.
    """

    meta: Meta
    options_schema: type[Schema]
    join_schema: type[Schema] | None = None
    gm_join_fields: frozenset[str] = frozenset()  # join fields only the GM may set
    private_join_fields: frozenset[str] = frozenset()  # join fields only that player and the GM see
    secret_options: frozenset[str] = frozenset()  # options only the GM sees until the end (fixed draws)
    actions: Mapping[str, ActionType]
    default_deadlines: Mapping[str, int]
    # Games the conformance suite plays with bots: options, player count, each player's sign-up fields (optional).
    simulation_cases: tuple[Mapping[str, Any], ...] = ({"options": {}, "players": 4},)
    # What the engine sends out, as OpenAPI 3.0 schemas published per game type (None: a loose object).
    view_schema: Mapping[str, Any] | None = None  # view(), for every viewer (what some never see is optional)
    result_schema: Mapping[str, Any] | None = None  # result()
    hint_schema: Mapping[str, Any] | None = None  # legal_actions_hint()
    outcome_schema: Mapping[str, Any] | None = None  # setup and outcome records: {"public", "private", "secret"}
    # Player counts by option: {"min", "max", "by_option": [{"option", "value", "min", "max"}]} (meta: the widest).
    player_counts: Mapping[str, Any] | None = None

    # -- setup -----------------------------------------------------------------
    def setup(self, options: JSON, players: list[JSON], rng: Rng) -> JSON:
        """Every random draw the game needs at start, in the outcome shape.

        Raise RuleError when the options do not fit these players (the start is refused).
        """
        return {"public": {}, "private": {}, "secret": {}}

    def initial_state(self, options: JSON, players: list[JSON], setup: JSON) -> State:
        raise NotImplementedError

    # -- phases and orders -----------------------------------------------------
    def phase(self, state: State) -> Phase | None:
        """The open phase, or None once the game is over."""
        raise NotImplementedError

    def validate(self, state: State, actor: str, action: JSON) -> None:
        """Raise RuleError unless the rules allow ``action`` from ``actor`` now.  The gate (``engines.gate``)
        has already checked its schema, that the game goes on, that ``actor`` is among the phase's
        actors and has not left, and that the action belongs to this phase."""
        raise NotImplementedError

    def apply_action(self, state: State, actor: str, action: JSON) -> State:
        raise NotImplementedError

    def resolve(self, state: State, rng: Rng) -> JSON:
        """The outcome of the open phase at its deadline, missing orders defaulted."""
        raise NotImplementedError

    def apply_outcome(self, state: State, outcome: JSON) -> State:
        raise NotImplementedError

    # -- membership ---------------------------------------------------------------
    def change_members(self, state: State, change: JSON, rng: Rng) -> JSON:
        """The recorded outcome of ``change`` (``{"kind": "join" | "quit" | "eject", "player": {...}}``),
        in the outcome shape, every draw in it.  ``"closes_phase": True`` in it ends the open phase at
        once (the next one opens with a fresh deadline).  Raise RuleError to refuse the change: by
        default a game takes nobody after its start (unless ``meta.late_joins``)."""
        if change["kind"] == "join" and not self.meta.late_joins:
            raise not_now("sign-up", "This game takes no new players once it has started.")
        return {"public": {}}

    def apply_members(self, state: State, change: JSON, outcome: JSON) -> State:
        """The state after a recorded membership change; by default a leaver is listed in ``departed``.

        Like every step it returns a new state and shares what it does not change.
        """
        player_id = change["player"]["id"]
        if change["kind"] == "join" or player_id in state.get("departed", ()):
            return state
        return {**state, "departed": [*state.get("departed", ()), player_id]}

    def teams(self, state: State, player_id: str) -> tuple[str, ...]:
        """The team viewers ``player_id`` belongs to now (none by default)."""
        return ()

    # -- what people see -------------------------------------------------------
    def view(self, state: State, viewer: Viewer) -> JSON:
        """What ``viewer`` (a player id, GM or PUBLIC) may see of the state."""
        raise NotImplementedError

    def closed_view(self, state: State, viewer: Viewer) -> JSON:
        """What ``viewer`` (never the GM) sees of a finished game whose log stays closed at the end (the GM chose
        ``reveal_at_end: "rulebook"``): only what the rulebook reveals.  By default the view itself; a game whose
        view opens hidden parts once it is over leaves them out here."""
        return self.view(state, viewer)

    def shown_outcome(self, state: State, shown: JSON, viewer: Viewer) -> JSON:
        """A recorded outcome as ``viewer`` (never the GM) sees it in the log, given ``shown``: its parts cut to
        that viewer (``redact_outcome``).  A game whose rules show less than what its outcomes record as public
        cuts more here (Golden Strider's Tarnished report); ``state`` is the game as it stands now.  The
        recorded outcome, its hash and the audit are unchanged; by default, ``shown`` as it is."""
        return shown

    def result(self, state: State) -> JSON | None:
        """The final result (winners, standings) once the game is over."""
        raise NotImplementedError

    def legal_actions_hint(self, state: State, player_id: str) -> JSON | None:
        """Optional: the legal moves for a client to offer (shown in the player's view)."""
        return None

    # -- simulation --------------------------------------------------------------
    def bot_action(self, state: State, actor: str, rng: Rng) -> JSON | None:
        """A random legal order for ``actor`` now, or None to send nothing."""
        raise NotImplementedError


def redact_outcome(outcome: JSON, viewer: Viewer, teams: tuple[str, ...] = ()) -> JSON:
    """The part of a setup record or outcome that ``viewer`` (a member of ``teams``) may see."""
    if viewer == GM:
        return outcome
    private = outcome.get("private", {})
    shown: dict[str, Any] = {"public": outcome.get("public", {})}
    mine = {key: private[key] for key in (viewer, *teams) if key is not None and key in private}
    if mine:
        shown["private"] = mine
    return shown
