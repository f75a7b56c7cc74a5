"""The GM console: pages served at /console that talk to the public /v1 API only, with the token the user pastes
(kept in the tab's sessionStorage; never in a URL or a cookie).  The pages are templates with no game data in them:
the script fills them in from /v1, so the console can show nothing a third-party client could not."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, render_template

console = Blueprint("console", __name__, url_prefix="/console", template_folder="templates",
                    static_folder="static", static_url_path="/static")

# No inline script or style, nothing from another origin but the stream process's (connect-src, where one is set);
# the board pictures are blob: URLs of the API's own SVG.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'{stream}; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def _stream_url() -> str:
    """The stream process's base URL (runtime/config.py), which the pages follow games from; '' where there is none."""
    return current_app.config["ARBITER_SETTINGS"].stream_url or ""


@console.context_processor
def _settings() -> dict[str, Any]:
    return {"stream_url": _stream_url()}


@console.after_request
def _lock_down(response: Any) -> Any:
    origin = current_app.config["ARBITER_SETTINGS"].stream_origin
    response.headers["Content-Security-Policy"] = CSP.format(stream=f" {origin}" if origin else "")
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    return response


@console.get("")
@console.get("/")
def index() -> Any:
    return render_template("console/index.html")


@console.get("/games/<game_id>")
def game(game_id: str) -> Any:
    """The GM's (or anyone's) page of one game."""
    return render_template("console/game.html", game_id=game_id)


@console.get("/games/<game_id>/play")
def play(game_id: str) -> Any:
    """A player's page: their view, hints, order form and receipts."""
    return render_template("console/play.html", game_id=game_id)
