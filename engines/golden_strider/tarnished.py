"""Tarnished variant: drugs, accusations, testing and the managers' scores."""
from __future__ import annotations

from typing import Any

from engines.golden_strider import rules


def starting_total(drug: str | None, options: dict[str, Any]) -> int:
    """Rule 2, or Enduron's extra two points (32 by default)."""
    return options["enduron_total"] if drug == "enduron" else 30


def tested(state: dict[str, Any]) -> set[str]:
    """The accused athletes still in the results (a withdrawn one is not tested: ruling 14)."""
    accused = {rid for rid in state["accusations"].values() if rid}
    return {r["id"] for r in state["runners"] if r["id"] in accused and not r["withdrawn"]}


def disqualified(state: dict[str, Any]) -> set[str]:
    """Accused athletes are tested; the test is infallible, so every accused cheat goes."""
    by_id = {r["id"]: r for r in state["runners"]}
    return {rid for rid in tested(state) if by_id[rid].get("drug") not in (None, "clean")}


def score(state: dict[str, Any]) -> dict[str, Any]:
    """Places after disqualifications (the rest move up), points and the winner(s).

    Tied runners share a place and each score its points; a manager's accusation is
    +1 when it disqualifies and -1 for a clean runner (0 if the accused was withdrawn
    meanwhile: nobody tested); ties go to the manager with the highest-placed runner.
    """
    opts = state["options"]
    checked = tested(state)
    out = disqualified(state)
    finishers = [r for r in state["runners"] if not r["withdrawn"] and r["id"] not in out]
    places = rules.positions({r["id"]: r["square"] for r in finishers})
    points = {rid: _points(place, opts["place_points"]) for rid, place in places.items()}
    managers = []
    for player in state["players"]:
        pid = player["id"]
        if pid in state.get("departed", []):
            continue
        own = [r["id"] for r in state["runners"] if r["owner"] == pid]
        accused = state["accusations"].get(pid)
        bonus = 0 if accused not in checked else (1 if accused in out else -1)
        best = min((places[rid] for rid in own if rid in places), default=len(state["runners"]) + 1)
        managers.append({
            "player": pid, "name": player["name"], "accused": accused, "accusation": bonus,
            "runner_points": sum(points.get(rid, 0) for rid in own),
            "score": sum(points.get(rid, 0) for rid in own) + bonus, "best_place": best,
        })
    managers.sort(key=lambda m: (-m["score"], m["best_place"]))
    top = managers[0] if managers else None
    best = (top["score"], top["best_place"]) if top else None
    winners = [m["player"] for m in managers if (m["score"], m["best_place"]) == best]
    runners = [
        {"runner": r["id"], "name": r["name"], "player": r["owner"], "square": r["square"],
         "drug": r.get("drug") or "clean", "tested": r["id"] in checked,
         "disqualified": r["id"] in out, "place": places.get(r["id"]), "points": points.get(r["id"], 0)}
        for r in state["runners"]
    ]
    runners.sort(key=lambda r: (r["place"] is None, r["place"] or 0))
    return {"winners": winners, "managers": managers, "runners": runners}


def _points(place: int, table: list[int]) -> int:
    return table[place - 1] if place <= len(table) else 0
