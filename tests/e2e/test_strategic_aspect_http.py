"""A whole Strategic Aspect game over HTTP with a real RQ worker and short deadlines: a quit mid-cycle (a
suffice cycle follows), a declined safety transfer, and a ceremony decided at its deadline with votes missing;
then the audit, the report in every format, and what a player may not see."""
from __future__ import annotations


from engines import registry
from engines.rng import Rng
from runtime.config import Settings
from runtime.context import Context
from tests.e2e.follow import Logs, past
from tests.e2e.play import create_and_join, hurry
from tests.e2e.stack import Stack

DEADLINES = {"move": 2, "steal": 2, "buy_vote": 2, "auction": 2, "rebid": 2, "safety": 2, "accept": 2, "vote": 2,
             "tiebreak": 2, "suffice": 2}


def test_strategic_aspect_over_http_with_a_quit_a_declined_transfer_and_a_ceremony_at_its_deadline(
        stack: Stack, settings: Settings) -> None:
    stack.start_worker("worker-1")
    logs = Logs(settings.redis_url)
    game_id, gm, tokens = create_and_join(stack, "strategic-aspect", 5, seed="e2e-strategic-aspect",
                                          deadlines=DEADLINES)
    engine = registry.latest("strategic-aspect")
    ctx = Context(settings)
    quit_done = declined = False
    short_ceremonies = 0
    for _ in range(600):
        game = stack.call("GET", f"/games/{game_id}")[1]
        if game["status"] == "finished":
            break
        phase, number = game["phase"], game["phase"]["number"]
        state = ctx.loader.load(game_id)["engine"]
        if not quit_done and phase["name"] == "move" and state["cycle"]["turn"] >= 5 and "p4" not in phase["actors"]:
            status, body = stack.call("POST", f"/games/{game_id}/actions", {"type": "quit"}, token=tokens["p4"])
            assert status == 202, body
            quit_done = True
            logs.wait([game_id], past(number), 30)
            game = stack.call("GET", f"/games/{game_id}")[1]
            assert game["state"]["cycle"]["kind"] == "suffice" and game["phase"]["name"] == "suffice"
            assert game["state"]["standings"][-1]["shown"].startswith("▲ ")
            continue
        missing = False
        for player in phase["awaiting"]:
            order = engine.bot_action(state, player, Rng("e2e", number, player)) or {"type": "missed"}
            if phase["name"] == "safety":  # give it away once; after the refusal, destroy it: everyone votes
                to = engine.legal_actions_hint(state, player)["to"][0]
                order = {"type": "safety", "choice": "give", "to": to} if not declined else {
                    "type": "safety", "choice": "destroy"}
            elif phase["name"] == "accept" and not declined:
                order, declined = {"type": "accept", "accept": False}, True
            elif phase["name"] == "move" and order["type"] == "move":
                order = {"type": "move", "spaces": max(engine.legal_actions_hint(state, player)["spaces"])}
            elif phase["name"] == "vote" and player != phase["awaiting"][0]:
                missing = True
                continue  # the rest miss the deadline: the ceremony is decided at it
            if order.get("type") in engine.actions:
                status, body = stack.call("POST", f"/games/{game_id}/actions", order, token=tokens[player])
                assert status == 202, (order, body)
            else:
                missing = True
        if phase["name"] == "vote" and len(phase["awaiting"]) > 1:
            short_ceremonies += 1
        if missing:
            hurry(stack, game_id, gm, phase)
        logs.wait([game_id], past(number), 30)
    game = stack.call("GET", f"/games/{game_id}")[1]
    assert game["status"] == "finished" and game["result"]["winner"] in ("p1", "p2", "p3", "p5")
    assert quit_done and declined and short_ceremonies >= 1, " ".join(f"{n}:{t}" for n, t in [
        (e["data"]["name"], e["data"]["trigger"]) for e in stack.call("GET", f"/games/{game_id}/events?limit=1000")[1][
            "events"] if e["type"] == "phase.resolved" and e["data"]["name"] != "move"])

    events = stack.call("GET", f"/games/{game_id}/events?limit=1000")[1]["events"]
    resolved = [e for e in events if e["type"] == "phase.resolved"]
    votes = [e for e in resolved if e["data"]["name"] == "vote"]
    assert any(e["data"]["trigger"] == "deadline" for e in votes)
    ceremony = next(x for e in votes for x in e["data"]["outcome"]["public"]["effects"] if x["do"] == "ceremony")
    assert ceremony["abstained"], "votes were missing at the deadline"
    accepts = [x for e in resolved if e["data"]["name"] == "accept" for x in e["data"]["outcome"]["public"]["effects"]
               if x["do"] == "accept"]
    assert accepts and accepts[0]["accept"] is False
    assert any(e["type"] == "player.quit" for e in events)

    status, audit = stack.call("GET", f"/games/{game_id}/audit")
    assert status == 200 and audit["ok"], audit
    for fmt in ("text", "markdown", "bbcode", "json"):
        status, body = stack.call("GET", f"/games/{game_id}/report?format={fmt}&round=1")
        assert status == 200 and body["round"] == 1, body


def test_strategic_aspect_turn_order_is_never_shown_before_the_turn_over_http(stack: Stack, settings: Settings) -> None:
    """Through every read a player or the public has (the game, its events, the report), the rest of the
    round's order stays unseen; the GM sees it."""
    stack.start_worker("worker-1")
    game_id, gm, tokens = create_and_join(stack, "strategic-aspect", 6, seed="e2e-hidden-order",
                                          deadlines=DEADLINES)
    first = Context(settings).loader.load(game_id)["engine"]["current"]
    status, body = stack.call("POST", f"/games/{game_id}/actions", {"type": "move", "spaces": 1}, token=tokens[first])
    assert status == 202, body
    Logs(settings.redis_url).wait([game_id], past(1), 30)
    rest = Context(settings).loader.load(game_id)["engine"]["order"]
    assert len(rest) == 4
    for token in (None, *tokens.values()):
        for path in ("", "/events", "/report", "/replay"):
            status, body = stack.call("GET", f"/games/{game_id}{path}", token=token)
            assert status == 200, (path, body)
            assert '"order"' not in str(body).replace("'", '"'), (path, body)
    assert stack.call("GET", f"/games/{game_id}", token=gm)[1]["state"]["order"] == rest
