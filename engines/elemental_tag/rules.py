"""The rules of each round, written once: they work on a copy of the board (who is where, the teams,
who is it) and say what happened; the engine records that as the outcome and the fold installs it.

A board is ``{"players": {id: {"team", "pos"}}, "teams": {team id: {"element", "members", "points"}},
"it", "it_history", "next_team", "size"}``.  Team ids are ``t1``, ``t2``, ... in the order teams come to
be; an element team's viewer is ``team:<element>:<team id>``; an underworld player is a team of one with no
element.
"""
from __future__ import annotations

from typing import Any

from engines.canonical import roundtrip
from engines.contract import JSON, State
from engines.elemental_tag import board as grid
from engines.elemental_tag.schemas import ELEMENTS
from engines.elemental_tag.versions import Rulings
from engines.rng import Rng

Board = dict[str, Any]
BOARD_KEYS = ("players", "teams", "it", "it_history", "next_team", "size")
# Ruling 16: points for places, counted from the last team eliminated (the last team standing: 5).
PLACE_POINTS = {1: 3, 2: 2, 3: 2, 4: 1, 5: 1, 6: 1}
WINNER_POINTS = 5


def by_id(player: str) -> tuple[int, str]:
    """Player (and team) ids in their natural order: p2 before p10."""
    return (len(player), player)


def board_of(state: State) -> Board:
    """A copy of the state's board that the rules may change."""
    return roundtrip({key: state[key] for key in BOARD_KEYS})


def present(board: Board) -> list[str]:
    return sorted(board["players"], key=by_id)


def team_of(board: Board, player: str) -> JSON:
    return board["teams"][board["players"][player]["team"]]


def element_team(board: Board, element: str) -> str | None:
    """The team that holds ``element`` now, if any."""
    return next((tid for tid, team in board["teams"].items() if team["element"] == element), None)


def open_elements(board: Board) -> list[str]:
    held = {team["element"] for team in board["teams"].values()}
    return [e for e in ELEMENTS if e not in held]


def new_team(board: Board, element: str | None, members: list[str], points: int) -> str:
    tid = f"t{board['next_team']}"
    board["next_team"] += 1
    board["teams"][tid] = {"element": element, "members": sorted(members, key=by_id), "points": points}
    for member in members:
        board["players"][member]["team"] = tid
    return tid


def charge(board: Board, changes: list[JSON], tid: str, amount: int, why: str) -> None:
    """Take ``amount`` points from a team (ruling 11: points may go below zero until the round's end)."""
    if amount:
        board["teams"][tid]["points"] -= amount
        changes.append({"team": tid, "points": -amount, "why": why})


def make_it(board: Board, player: str) -> None:
    board["it"] = player
    board["it_history"] = [p for p in board["it_history"] if p != player] + [player]


def eliminate(board: Board, turn: int) -> list[JSON]:
    """Rule 6: every team at no points (zero or below) is out, with all its players."""
    out = []
    for tid in sorted(board["teams"], key=by_id):
        team = board["teams"][tid]
        if team["points"] > 0:
            continue
        out.append({"team": tid, "element": team["element"], "members": team["members"],
                    "points": team["points"], "turn": turn, "how": "points"})
        for member in team["members"]:
            del board["players"][member]
        del board["teams"][tid]
    return out


def retire_if_empty(board: Board, tid: str, turn: int) -> list[JSON]:
    """A team whose last player has quit or been ejected by the GM leaves the game (ruling 17)."""
    team = board["teams"][tid]
    if team["members"]:
        return []
    del board["teams"][tid]
    return [{"team": tid, "element": team["element"], "members": [], "points": team["points"], "turn": turn,
             "how": "left"}]


def hand_on_it(board: Board, rng: Rng) -> JSON | None:
    """Rule 6: when the it player is gone, the most recent it player still in the game is it again;
    if there is none, a player drawn by lot."""
    gone = board["it"]
    if gone is None or gone in board["players"]:
        return None
    if not board["players"]:
        board["it"] = None
        return {"from": gone, "to": None, "how": "nobody left"}
    recent = next((p for p in reversed(board["it_history"]) if p in board["players"]), None)
    if recent is not None:
        board["it"] = recent
        return {"from": gone, "to": recent, "how": "most recent"}
    among = present(board)
    index = rng.below(len(among))
    make_it(board, among[index])
    return {"from": gone, "to": among[index], "how": "drawn", "among": among, "index": index}


def average(bids: list[int], rounding: str) -> int:
    """Ruling 8: a mean of whole points, rounded to the nearest (halves up), down or up as the GM chose."""
    total, count = sum(bids), len(bids)
    if rounding == "down":
        return total // count
    if rounding == "up":
        return -(-total // count)
    return (2 * total + count) // (2 * count)


# -- Round 1: who's it --------------------------------------------------------------------------
def bidding(state: State, rng: Rng, rulings: Rulings) -> tuple[JSON, JSON]:
    """The lowest bid is it; everyone else pays their bid (tied lowest bidders not drawn pay the
    average); then teams at no points are out, and everyone left is placed on the map at random.
    Ruling 9: individual bids are never announced, so each team's change is its bids' total."""
    options, board, changes = state["options"], board_of(state), []
    bids = {p: state["orders"][p]["amount"] if p in state["orders"] else options["missed_bid"]
            for p in present(board)}
    lowest = min(bids.values())
    tied = [p for p in present(board) if bids[p] == lowest]
    draw = rng.fork("it").below(len(tied)) if len(tied) > 1 else 0
    it = tied[draw]
    counted = list(bids.values()) if options["tie_average"] == "all_bids" else [lowest] * len(tied)
    tie_price = average(counted, options["average_rounding"])
    paid = {p: tie_price if p in tied else bids[p] for p in present(board) if p != it}
    if rulings.bids_paid_per_team:
        totals: dict[str, int] = {}
        for player, amount in paid.items():
            tid = board["players"][player]["team"]
            totals[tid] = totals.get(tid, 0) + amount
        for tid in sorted(totals, key=by_id):
            charge(board, changes, tid, totals[tid], "bid")
    else:  # version 1.0.0 announced each bid
        for player, amount in paid.items():
            charge(board, changes, board["players"][player]["team"], amount, "bid")
    make_it(board, it)
    eliminated = eliminate(board, state["turn"])
    transfer = hand_on_it(board, rng.fork("it after elimination"))
    board["size"] = grid.grid_side(len(board["players"]), options["grid_size"])
    placed = place_all(board, rng.fork("placement"))
    public = {"kind": "bidding", "it": board["it"], "tied": tied if len(tied) > 1 else [],
              "draw": {"among": tied, "index": draw} if len(tied) > 1 else None,
              "changes": changes, "eliminated": eliminated, "it_transfer": transfer, "placement_draws": placed}
    secret = {"bids": bids, "missed": sorted((p for p in bids if p not in state["orders"]), key=by_id),
              "tie_price": tie_price if len(tied) > 1 else None}
    return public, {"board": board, "secret": secret}


def place_all(board: Board, rng: Rng) -> list[int]:
    """Rule 2: everyone on a random empty square, in id order; the draws (indices into the free squares,
    row by row) are returned to be recorded."""
    free = grid.squares(board["size"])
    draws = []
    for player in present(board):
        index = rng.below(len(free))
        draws.append(index)
        board["players"][player]["pos"] = list(free.pop(index))
    return draws


def empty_squares(board: Board) -> list[grid.Square]:
    taken = {tuple(p["pos"]) for p in board["players"].values() if p["pos"] is not None}
    return [sq for sq in grid.squares(board["size"]) if sq not in taken]


# -- Round 2: a new place -----------------------------------------------------------------------
def placement(state: State, rng: Rng, rulings: Rulings) -> tuple[JSON, JSON]:
    """Rule 2: those who asked are taken off the map together, then each (in id order) is put on a
    random empty square other than the one they left, for ``replace_cost`` points to their team."""
    options, board, changes = state["options"], board_of(state), []
    asked = [p for p in present(board) if state["orders"].get(p, {}).get("replace")]
    old = {p: tuple(board["players"][p]["pos"]) for p in asked}
    for player in asked:
        board["players"][player]["pos"] = None
    draws = []
    for player in asked:
        free = [sq for sq in empty_squares(board) if sq != old[player]]
        if not free:  # a full map (a GM's fixed size): the place is kept, and nothing is paid
            board["players"][player]["pos"] = list(old[player])
            draws.append(None)
            continue
        index = rng.below(len(free))
        draws.append(index)
        board["players"][player]["pos"] = list(free[index])
        charge(board, changes, board["players"][player]["team"], options["replace_cost"], "new place")
    eliminated = eliminate(board, state["turn"])
    transfer = hand_on_it(board, rng.fork("it after elimination"))
    public = {"kind": "placement", "it": board["it"], "replaced": asked, "placement_draws": draws, "changes": changes,
              "eliminated": eliminated, "it_transfer": transfer}
    return public, {"board": board, "secret": {}}


# -- Round 3 on: moving, tagging and team actions ------------------------------------------------
def moving(state: State, rng: Rng, rulings: Rulings) -> tuple[JSON, JSON]:
    """One moving round, in the order of ruling 12: moves and collisions; the tag; the chase's points
    (being it, the tag list, being tagged); eliminations; team actions; eliminations again; it-ness
    handed on if its holder is gone."""
    options, board, changes, turn = state["options"], board_of(state), [], state["turn"]
    moves = {p: state["orders"].get(p, {}).get("direction", "stay") for p in present(board)}
    positions = {p: tuple(board["players"][p]["pos"]) for p in present(board)}
    targets = {p: grid.target(positions[p], moves[p]) for p in positions}
    targets = {p: (t if grid.on_grid(t, board["size"]) else positions[p]) for p, t in targets.items()}
    final, collisions = grid.resolve_moves(positions, targets, rulings)
    for player, square in final.items():
        board["players"][player]["pos"] = list(square)

    tagger = board["it"]
    tags = [t for t in (state["orders"].get(tagger, {}).get("tags") or []) if t in board["players"]]
    hit = grid.met(collisions, tagger) if tagger else set()
    tagged = next((t for t in tags if t in hit), None)
    if tagger is not None:
        tagger_team = board["players"][tagger]["team"]
        charge(board, changes, tagger_team, options["it_cost"], "it")
        charge(board, changes, tagger_team, options["tag_cost"] * len(tags), "tag list")
    if tagged is not None:
        if board["players"][tagged]["team"] != board["players"][tagger]["team"]:
            charge(board, changes, board["players"][tagged]["team"], options["tagged_cost"], "tagged")
        make_it(board, tagged)
    eliminated = eliminate(board, turn)
    team_events, draws = team_actions(state, board, changes, rng.fork("team actions"))
    eliminated += eliminate(board, turn)
    transfer = hand_on_it(board, rng.fork("it after elimination"))
    applications = {p: a["apply"]["element"] for p, a in state["acts"].items()
                    if "apply" in a and p in board["players"] and team_of(board, p)["element"] is None
                    and element_team(board, a["apply"]["element"]) is not None}
    public = {"kind": "moving", "moves": moves, "collisions": collisions, "tagger": tagger, "tagged": tagged,
              "it": board["it"], "changes": changes, "eliminated": eliminated, "team_events": team_events,
              "team_draws": draws, "it_transfer": transfer, "applications": dict(sorted(applications.items()))}
    secret = {"tags": tags, "acts": state["acts"]}
    return public, {"board": board, "secret": secret}


def _acts(state: State, board: Board, key: str) -> list[str]:
    """Players still in the game who gave the team action ``key`` this round, in id order."""
    return [p for p in present(board) if key in state["acts"].get(p, {})]


def _yes(state: State, voters: list[str], key: str) -> int:
    return sum(1 for v in voters if key in state["acts"].get(v, {}))


def team_actions(state: State, board: Board, changes: list[JSON], rng: Rng) -> tuple[list[JSON], JSON]:
    """Rule 5, in this order (ruling 13): leaving, ejections, two-player teams disbanding, underworld pairs
    forming teams, admissions voted on this round.  Leaving and ejection need a team of three or more at
    that moment; votes need more than half of the team (an ejection: of the others)."""
    options, events, draws = state["options"], [], {}
    if not state["acts"] and not state["applications"]:
        return events, draws  # nobody sent a team action and nobody applied: nothing to decide

    def go_alone(player: str) -> None:
        team = team_of(board, player)
        team["members"] = [m for m in team["members"] if m != player]
        new_team(board, None, [player], options["newcomer_points"])

    # The kinds of team action sent this round ("eject" for every "eject:p5"): a step no one asked for changes
    # nothing, and is not walked team by team (a round most often has one or two kinds, or none).
    asked = {key.partition(":")[0] for acts in state["acts"].values() for key in acts}
    for player in _acts(state, board, "leave") if "leave" in asked else ():
        tid = board["players"][player]["team"]
        if board["teams"][tid]["element"] is not None and len(board["teams"][tid]["members"]) >= 3:
            go_alone(player)
            events.append({"event": "left", "player": player, "team": tid})
    for tid in sorted(board["teams"], key=by_id) if "eject" in asked else ():
        for target in list(board["teams"].get(tid, {}).get("members", [])):
            members = board["teams"][tid]["members"]
            others = [m for m in members if m != target]
            if len(members) >= 3 and 2 * _yes(state, others, f"eject:{target}") > len(others):
                go_alone(target)
                charge(board, changes, tid, options["eject_cost"], "ejection")
                events.append({"event": "ejected", "player": target, "team": tid})
    for tid in sorted(board["teams"], key=by_id) if "disband" in asked else ():
        team = board["teams"][tid]
        members = team["members"]
        if team["element"] is None or len(members) != 2 or _yes(state, members, "disband") != 2:
            continue
        half, odd = divmod(team["points"], 2)
        lucky = rng.fork("disband", tid).below(2) if odd else None
        del board["teams"][tid]
        for index, member in enumerate(members):
            new_team(board, None, [member], half + (1 if index == lucky else 0))
        events.append({"event": "disbanded", "team": tid, "element": team["element"], "players": members})
        if odd:
            draws[f"disband {tid}"] = {"among": members, "index": lucky}
    if "form" in asked:
        _form_teams(state, board, events, draws, rng)
    for applicant in sorted(state["applications"], key=by_id):
        tid = element_team(board, state["applications"][applicant])
        if tid is None or applicant not in board["players"] or team_of(board, applicant)["element"] is not None:
            continue
        members = board["teams"][tid]["members"]
        if 2 * _yes(state, members, f"admit:{applicant}") > len(members):
            del board["teams"][board["players"][applicant]["team"]]
            board["teams"][tid]["members"] = sorted([*members, applicant], key=by_id)
            board["players"][applicant]["team"] = tid
            events.append({"event": "admitted", "player": applicant, "team": tid})
    return events, draws


def _form_teams(state: State, board: Board, events: list[JSON], draws: JSON, rng: Rng) -> None:
    """Two underworld players who name each other and the same open element become a team of that
    element with their points pooled; where pairs want one element, one pair is drawn (ruling 14)."""
    wanting: dict[str, list[list[str]]] = {}
    for player in _acts(state, board, "form"):
        mine = state["acts"][player]["form"]
        partner = mine["partner"]
        theirs = state["acts"].get(partner, {}).get("form")
        if (by_id(player) < by_id(partner) and theirs and theirs["partner"] == player
                and theirs["element"] == mine["element"] and partner in board["players"]
                and team_of(board, player)["element"] is None and team_of(board, partner)["element"] is None
                and mine["element"] in open_elements(board)):
            wanting.setdefault(mine["element"], []).append([player, partner])
    for element in sorted(wanting):
        pairs = wanting[element]
        index = rng.fork("form", element).below(len(pairs)) if len(pairs) > 1 else 0
        if len(pairs) > 1:
            draws[f"form {element}"] = {"among": pairs, "index": index}
        pair = pairs[index]
        pooled = sum(team_of(board, p)["points"] for p in pair)
        for player in pair:
            del board["teams"][board["players"][player]["team"]]
        tid = new_team(board, element, pair, pooled)
        events.append({"event": "formed", "team": tid, "element": element, "players": pair, "points": pooled})


# -- Late sign-ups, quitting, ejection by the GM ------------------------------------------------
def is_late_sign_up(state: State) -> bool:
    """Ruling 15: a sign-up after the start is late (six players must remain), unless the bids are open and the
    house rule ``round_one_signups`` lets it join as if it came in time."""
    return state["stage"] != "bidding" or not state["options"]["round_one_signups"]


def joins_as_at_the_start(state: State, rulings: Rulings) -> bool:
    """Ruling 15: whether a sign-up joins its element's team (or the underworld with 25 points) as at the start;
    else it is a newcomer of the underworld.  Version 1.0.0 joined as at the start whenever the bids were open."""
    if rulings.round_one_signups_is_an_option:
        return not is_late_sign_up(state)
    return state["stage"] == "bidding"


def join(state: State, player: JSON, rng: Rng, rulings: Rulings) -> JSON:
    """Rule 5 and ruling 15: a late sign-up is an underworld player with ``newcomer_points`` (on a random empty
    square once the map is drawn; joining a team takes the team's vote), unless it joins as at the start."""
    options, board = state["options"], board_of(state)
    pid = player["id"]
    board["players"][pid] = {"team": None, "pos": None}
    square = None
    if joins_as_at_the_start(state, rulings):
        element = (player.get("fields") or {}).get("element")
        tid = element_team(board, element) if element else None
        if tid is not None:
            board["teams"][tid]["members"] = sorted([*board["teams"][tid]["members"], pid], key=by_id)
            board["players"][pid]["team"] = tid
        else:
            tid = new_team(board, element, [pid],
                           options["element_points"] if element else options["underworld_points"])
    else:
        tid = new_team(board, None, [pid], options["newcomer_points"])
        if board["size"] is not None:  # during the bids the map is not drawn yet: placed with everyone
            free = empty_squares(board)
            index = rng.below(len(free))
            square = list(free[index])
            board["players"][pid]["pos"] = square
    return {"public": {"joined": pid, "team": tid, "square": square}, "board": board}


def leave(state: State, player: str, how: str, rng: Rng) -> JSON:
    """A player who quits or whom the GM ejects leaves the map and their team (which keeps its points);
    a team left with nobody leaves the game; it-ness is handed on as at an elimination."""
    board = board_of(state)
    if player not in board["players"]:
        return {"public": {"left": player, "how": how, "in_play": False}, "board": board}
    tid = board["players"][player]["team"]
    del board["players"][player]
    board["teams"][tid]["members"] = [m for m in board["teams"][tid]["members"] if m != player]
    retired = retire_if_empty(board, tid, state["turn"])
    transfer = hand_on_it(board, rng)
    return {"public": {"left": player, "how": how, "in_play": True, "team": tid, "eliminated": retired,
                       "it_transfer": transfer}, "board": board}


# -- Scoring -------------------------------------------------------------------------------------
def standings(state: State) -> JSON:
    """Rule 6 and ruling 16: 5 for the last team standing, 3 for the last eliminated, 2 for the second and
    third to last, 1 for the fourth to sixth to last; teams out in the same round are ranked by their points
    (more is later), and teams still tied share the better place.  Teams that left score nothing."""
    survivors = [{"team": tid, **team} for tid, team in sorted(state["teams"].items(), key=lambda kv: by_id(kv[0]))]
    ranked = sorted((e for e in state["eliminated"] if e["how"] == "points"),
                    key=lambda e: (-e["turn"], -e["points"], by_id(e["team"])))
    teams = []
    for team in survivors:
        teams.append({"team": team["team"], "element": team["element"], "members": team["members"],
                      "points": team["points"], "place": "last standing", "score": WINNER_POINTS})
    place = 0
    for index, entry in enumerate(ranked):
        if index == 0 or (entry["turn"], entry["points"]) != (ranked[index - 1]["turn"], ranked[index - 1]["points"]):
            place = index + 1
        teams.append({"team": entry["team"], "element": entry["element"], "members": entry["members"],
                      "points": entry["points"], "place": place, "score": PLACE_POINTS.get(place, 0)})
    scores: dict[str, JSON] = {}
    for team in teams:
        for member in team["members"]:
            guild = state["guilds"].get(member)
            scores[member] = {"score": team["score"], "team": team["team"], "element": team["element"],
                              "guild_points": team["score"] if guild and guild == team["element"] else 0}
    players = [{"player_id": p, "name": state["names"][p], **scores.get(p, {"score": 0, "team": None,
                                                                               "element": None, "guild_points": 0}),
                "departed": p in state["departed"]}
               for p in state["roster"]]
    players.sort(key=lambda row: (-row["score"], by_id(row["player_id"])))
    return {"winners": [m for t in teams if t["place"] == "last standing" for m in t["members"]],
            "teams": teams, "players": players}
