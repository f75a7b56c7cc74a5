"""The document's paths: the generic operations under ``/v1/games`` (every game type), each game type's typed
operations under ``/v1/game-types/{name}/games``, and the OpenAPI links that say what a client does next with
what an answer gave it."""
from __future__ import annotations

from typing import Any, Iterator

from engines import registry
from engines.contract import Engine
from service.openapi.games import typed_create
from service.openapi.parts import (
    OPTIONAL_TOKEN, error_responses, game_id_param, idempotency_header, json_content, pascal, query_param, request_body,
    responses,
)


def link(operation_id: str, description: str, game: str, token: str | None = None) -> dict[str, Any]:
    parameters = {"path.game_id": game}
    if token is not None:
        parameters["header.Authorization"] = f"Bearer {{{token}}}"
    return {"operationId": operation_id, "parameters": parameters, "description": description}


_CREATED, _JOINED = "$response.body#/game_id", "$response.body#/game_id"
_GM, _PLAYER = "$response.body#/gm_token", "$response.body#/token"
# What a client does next with what an answer gave it (the game's id, the GM's or a player's token): OpenAPI links,
# which clients and testers (schemathesis's stateful phase) follow.
LINKS: dict[str, dict[str, dict[str, Any]]] = {
    "createGame": {"201": {
        "GetGame": link("getGame", "Read the new game.", _CREATED),
        "JoinGame": link("joinGame", "Sign a player up.", _CREATED),
        "RegisterPlayer": link("joinGame", "The GM registers a player.", _CREATED, _GM),
        "StartGame": link("startGame", "The GM starts it.", _CREATED, _GM),
        "GmAction": link("submitAction", "A GM action (pause, extend a deadline ...).", _CREATED, _GM),
        "GmGame": link("getGame", "The game as its GM sees it.", _CREATED, _GM),
        "Events": link("listEvents", "Its log.", _CREATED),
        "Audit": link("auditGame", "The GM's audit.", _CREATED, _GM),
        "Export": link("exportGame", "The GM's export.", _CREATED, _GM),
        "Replay": link("getReplay", "Its replay.", _CREATED)}},
    "joinGame": {"201": {
        "PlayerGame": link("getGame", "The game as this player sees it.", _JOINED, _PLAYER),
        "Order": link("submitAction", "This player's order.", _JOINED, _PLAYER),
        "PlayerEvents": link("listEvents", "The log as this player sees it.", _JOINED, _PLAYER)}},
    "startGame": {"200": {"Game": link("getGame", "The started game.", "$request.path.game_id")}},
    "submitAction": {"202": {"Events": link("listEvents", "The log with the order.", "$request.path.game_id")}},
}


EVENTS = ("Each event as the caller may see it: another player's sealed order cut to {phase, sealed: true} (its "
          "actor \"sealed\"), setup and outcome records to their public part and the caller's own, until the game is "
          "over. " + OPTIONAL_TOKEN)


REPLAY = ("With at: one frame (seq, event, view); at beyond the log's last seq is 422. Otherwise the frames after "
          "`after`, whose rules are those of /events: past the end, an empty page. With `as`, the view (events and "
          "game) of the viewer it names, byte for byte what their own token gets. " + OPTIONAL_TOKEN)


def _viewer_param() -> dict[str, Any]:
    return {"name": "as", "in": "query", "required": False, "schema": {"type": "string"}, "example": "public",
            "description": "Whose view to show instead of the caller's own: public, gm, or a player id (p1, p2 ...), "
            "exactly as that viewer's own token would get it. The game's GM may name any of them; a player only "
            "their own id or public; without a token, only public. Left out: the caller's own view."}


def _as_refusals(answers: dict[str, Any]) -> dict[str, Any]:
    """The 403 and 422 an ``as`` (or ``at``) may get, said in the operation's own words."""
    answers["403"]["description"] = ("forbidden: `as` names another viewer than the caller's own or the public, and "
                                     "the caller is not the game's GM (whether that player exists is not said).")
    answers["422"]["description"] = ("invalid: the GM's `as` names no player of the game (details.as), or a number "
                                     "is out of range (details names it: at beyond the log's seq ...).")
    return answers


def _events_parameters() -> list[dict[str, Any]]:
    return [query_param("after", "Only events with a larger seq (0-2^53; past the end: an empty page)"),
            query_param("limit", "At most this many (1-1000)", 1, 1000)]


def _replay_parameters() -> list[dict[str, Any]]:
    return [query_param("at", "One seq (422 beyond the log)", 1), _viewer_param(),
            query_param("after", "Only frames with a larger seq (0-2^53; past the end: an empty page)"),
            query_param("limit", "Frames (1-500)", 1, 500)]


def paths(engines: list[Engine]) -> Iterator[tuple[str, dict[str, Any]]]:
    gid = [game_id_param()]
    token = [{"bearer": []}]
    first = registry.names()[0] if registry.names() else "extreme-ways"
    yield "/v1/health", {"get": {"operationId": "getHealth", "tags": ["Service"], "summary": "Service and store "
                                 "health", "responses": responses(200, "Health")}}
    yield "/v1/keys", {"get": {"operationId": "listKeys", "tags": ["Service"], "summary": "The keys that sign "
                               "receipts and checkpoints (C2SP verifier keys), the signing one and those a rotation "
                               "retired", "responses": responses(200, "Keys")}}
    yield "/v1/game-types", {"get": {"operationId": "listGameTypes", "tags": ["Game types"], "summary": "Every "
                                     "game type with its options, sign-up fields, player counts and orders",
                                     "responses": responses(200, "GameTypes")}}
    yield "/v1/games", {
        "post": {"operationId": "createGame", "tags": ["Games"], "summary": "Create a game (with the admin token "
                 "if the server has one)", "requestBody": request_body("CreateGame", {"type": first, "name": "Friday "
                                                                                "game", "deadlines": {}}),
                 "responses": responses(201, "CreatedGame", 400, 401, 413, 422)},
        "get": {"operationId": "listGames", "tags": ["Games"], "summary": "Games, newest first, public fields "
                "only; filter by type and status, page with after=next_after", "parameters": [
                    {"name": "type", "in": "query", "required": False, "schema": {
                        "type": "string", "enum": [e.meta.name for e in engines]}},
                    {"name": "status", "in": "query", "required": False, "schema": {
                        "type": "string", "enum": ["signup", "running", "paused", "finished"]}},
                    {"name": "after", "in": "query", "required": False, "schema": {"type": "string"},
                     "description": "The next_after of the previous page."},
                    query_param("limit", "At most this many (1-100, default 20)", 1, 100)],
                "responses": responses(200, "GamesPage", 422)}}
    yield "/v1/me/games", {"post": {
        "operationId": "listMyGames", "tags": ["Games"], "summary": "The games of many tokens at once (a bot "
        "recovering after a restart)", "description": "Each token is given with its game (tokens belong to one "
        "game each) in the body, never in a URL; up to 100. Tokens that are not valid are listed under refused "
        "and count toward that game's throttle like any bad token.",
        "requestBody": request_body("MyGamesRequest", {"tokens": [{"game_id": "g0123456789abcdef", "token": "..."}]}),
        "responses": responses(200, "MyGames", 400, 413, 422)}}
    yield "/v1/games/{game_id}", {"get": {"operationId": "getGame", "tags": ["Games"], "summary": "The game as the "
                                          "caller may see it (any type; see the typed getters per game type)",
                                          "description": OPTIONAL_TOKEN, "parameters": gid,
                                          "responses": responses(200, "Game", 401, 404)}}
    yield "/v1/games/{game_id}/players", {"post": {
        "operationId": "joinGame", "tags": ["Games"], "summary": "Join a game (the GM may register players and set "
        "GM-only fields)", "description": "The body is the type's own (see the typed join per game type); unknown "
        "fields get 422. " + OPTIONAL_TOKEN, "parameters": gid, "requestBody": request_body("Join", {"name": "Ann"}),
        "responses": responses(201, "Joined", 400, 401, 403, 404, 409, 413, 422)}}
    yield "/v1/games/{game_id}/start", {"post": {
        "operationId": "startGame", "tags": ["Games"], "summary": "Close sign-up and open the first phase (GM)",
        "parameters": gid + [idempotency_header()], "security": token,
        "responses": responses(200, "Started", 400, 401, 403, 404, 409, 413)}}
    yield "/v1/games/{game_id}/actions", {"post": {
        "operationId": "submitAction", "tags": ["Games"], "summary": "Send an order (players) or a GM action, of "
        "any game type (see the typed operation per game type)", "parameters": gid + [idempotency_header()],
        "security": token, "requestBody": request_body("Action", {"type": "gm.pause", "reason": "Holiday"}),
        "responses": responses(202, "Accepted", 400, 401, 403, 404, 409, 413, 422)}}
    yield "/v1/games/{game_id}/events", {"get": {
        "operationId": "listEvents", "tags": ["Games"], "summary": "The log, redacted for the caller (any type; see "
        "the typed logs per game type)", "description": EVENTS, "parameters": gid + _events_parameters(),
        "responses": responses(200, "EventsPage", 401, 404, 422)}}
    yield "/v1/games/{game_id}/replay", {"get": {
        "operationId": "getReplay", "tags": ["Games"], "summary": "The caller's view after each event, or at one seq",
        "description": REPLAY,
        "parameters": gid + _replay_parameters(), "responses": _as_refusals(responses(200, "Replay", 401, 403, 404,
                                                                                      422))}}
    for part, op, schema, summary in [("audit", "auditGame", "Audit", "Re-fold and check everything"),
                                      ("export", "exportGame", "Export", "The whole log, self-contained")]:
        yield f"/v1/games/{{game_id}}/{part}", {"get": {
            "operationId": op, "tags": ["Games"], "summary": f"{summary} (GM, or anyone once finished)",
            "description": "A token is optional once the game is finished; before that only the GM's "
            "is accepted (none: 401, a player's: 403).", "parameters": gid,
            "responses": responses(200, schema, 401, 403, 404)}}
    yield "/v1/games/{game_id}/checkpoint", {"get": {
        "operationId": "getCheckpoint", "tags": ["Games"], "summary": "The log's head (seq and hash), signed now: a "
        "C2SP checkpoint", "description": "With a receipt, it proves the receipt's event is in the game (the chain "
        "from its seq to the head); two of the same seq with different hashes prove a fork. " + OPTIONAL_TOKEN,
        "parameters": gid, "responses": responses(200, "Checkpoint", 401, 404)}}
    yield "/v1/games/{game_id}/report", {"get": {
        "operationId": "getReport", "tags": ["Games"], "summary": "The turn report, for games that have one",
        "description": OPTIONAL_TOKEN, "parameters": gid + [
            query_param("round", "Round number (default: latest)", 1, 10_000),
            {"name": "format", "in": "query", "required": False,
             "schema": {"type": "string", "enum": ["json", "text", "markdown", "bbcode"]}}],
        "responses": responses(200, "Report", 401, 404, 409, 422)}}
    yield "/v1/games/{game_id}/board.svg", {"get": {
        "operationId": "getBoardSvg", "tags": ["Games"], "summary": "The board as SVG, drawn from the caller's view",
        "description": "What the caller's view of the game shows (or the view `as` names), now or just after the "
        "event `at`, as a picture a forum post can embed; 409 not_started before the start (or at a seq before it). "
        + OPTIONAL_TOKEN, "parameters": gid + [
            query_param("at", "Draw the board as it was just after this seq (1 to the game's seq; beyond: 422); "
                        "the JSON answer's seq is then this at", 1), _viewer_param()],
        "responses": _as_refusals({"200": {"description": "Success: the SVG itself, or with Accept: application/json "
                                           "the SVG as a string and the seq it was drawn at", "content": {
                                               "image/svg+xml": {"schema": {"type": "string"}},
                                               **json_content("BoardPicture")}},
                                   **error_responses(401, 403, 404, 409, 422)})}}
    yield "/v1/replays/verify", {"post": {"operationId": "verifyExport", "tags": ["Games"], "summary": "Verify an "
                                          "exported log offline", "requestBody": request_body("ExportFile", {
                                              "format": "arbiter-export/1", "game_id": "g0123456789abcdef",
                                              "events": []}),
                                          "responses": responses(200, "Audit", 400, 413, 422)}}
    for engine in engines:
        yield from _typed_paths(engine, gid, token)


def _typed_paths(engine: Engine, gid: list[dict[str, Any]], token: list[dict[str, Any]]) -> Iterator[
        tuple[str, dict[str, Any]]]:
    """A game type's own operations: the same routes as the generic ones, typed; a game of another type is 404."""
    p, title, base = pascal(engine.meta.name), engine.meta.title, f"/v1/game-types/{engine.meta.name}/games"
    example = next((a for a in engine.actions.values() if a.actor == "player"), None)
    created = responses(201, "CreatedGame", 400, 401, 404, 413, 422)
    created["201"]["links"] = {
        "GetGame": link(f"get{p}Game", "Read the new game.", _CREATED),
        "JoinGame": link(f"join{p}Game", "Sign a player up.", _CREATED),
        "StartGame": link("startGame", "The GM starts it.", _CREATED, _GM),
        "GmAction": link(f"submit{p}Action", "A GM action.", _CREATED, _GM),
        "GmGame": link(f"get{p}Game", "The game as its GM sees it.", _CREATED, _GM),
        "Events": link(f"list{p}Events", "Its log, typed.", _CREATED),
        "GmEvents": link(f"list{p}Events", "Its log as its GM sees it.", _CREATED, _GM),
        "Audit": link("auditGame", "The GM's audit.", _CREATED, _GM),
        "Export": link("exportGame", "The GM's export.", _CREATED, _GM)}
    joined = responses(201, "Joined", 400, 401, 403, 404, 409, 413, 422)
    joined["201"]["links"] = {
        "PlayerGame": link(f"get{p}Game", "The game as this player sees it.", _JOINED, _PLAYER),
        "Order": link(f"submit{p}Action", "This player's order.", _JOINED, _PLAYER),
        "PlayerEvents": link(f"list{p}Events", "The log as this player sees it.", _JOINED, _PLAYER)}
    yield base, {"post": {
        "operationId": f"create{p}Game", "tags": [title], "summary": f"Create a {title} game (with the admin token "
        "if the server has one)", "requestBody": request_body(f"{p}CreateGame", typed_create(engine, p)["example"]),
        "responses": created}}
    yield f"{base}/{{game_id}}", {"get": {
        "operationId": f"get{p}Game", "tags": [title], "summary": f"A {title} game as the caller may see it",
        "description": OPTIONAL_TOKEN, "parameters": gid, "responses": responses(200, f"{p}Game", 401, 404)}}
    yield f"{base}/{{game_id}}/events", {"get": {
        "operationId": f"list{p}Events", "tags": [title], "summary": f"A {title} game's log, redacted for the caller",
        "description": EVENTS, "parameters": gid + _events_parameters(),
        "responses": responses(200, f"{p}EventsPage", 401, 404, 422)}}
    yield f"{base}/{{game_id}}/replay", {"get": {
        "operationId": f"get{p}Replay", "tags": [title], "summary": f"A {title} game's replay: the caller's view "
        "after each event, or at one seq", "description": REPLAY, "parameters": gid + _replay_parameters(),
        "responses": _as_refusals(responses(200, f"{p}Replay", 401, 403, 404, 422))}}
    yield f"{base}/{{game_id}}/players", {"post": {
        "operationId": f"join{p}Game", "tags": [title], "summary": f"Join a {title} game",
        "description": OPTIONAL_TOKEN, "parameters": gid, "requestBody": request_body(f"{p}Join", {"name": "Ann"}),
        "responses": joined}}
    yield f"{base}/{{game_id}}/actions", {"post": {
        "operationId": f"submit{p}Action", "tags": [title], "summary": f"Send a {title} order or a GM action",
        "parameters": gid + [idempotency_header()], "security": token,
        "requestBody": request_body(f"{p}Action", {"type": example.name, **dict(example.example)} if example else {
            "type": "gm.pause", "reason": "Holiday"}),
        "responses": responses(202, "Accepted", 400, 401, 403, 404, 409, 413, 422)}}

