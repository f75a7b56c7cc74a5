"""The console's pages: served by the API, locked down by their headers, with no game data baked in."""
from __future__ import annotations

from tests.platform.conftest import new_game
from tests.platform.helpers import Api


def test_the_pages_are_served_with_a_csp_that_allows_no_inline_script(api: Api) -> None:
    game = new_game(api, players=2)
    for path in ("/console", "/console/", f"/console/games/{game.id}", f"/console/games/{game.id}/play"):
        response = api.client.get(path)
        assert response.status_code == 200, path
        csp = response.headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "default-src 'none'" in csp
        assert response.headers["X-Frame-Options"] == "DENY" and response.headers["Referrer-Policy"] == "no-referrer"
        html = response.get_data(as_text=True)
        assert "<script src=\"/console/static/console.js\" defer></script>" in html
        assert html.count("<script") == 1 and " style=" not in html  # nothing inline for the CSP to refuse


def test_a_game_id_in_the_path_is_escaped_in_the_page(api: Api) -> None:
    response = api.client.get('/console/games/"><img src=x onerror=alert(1)>')
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_the_script_and_style_are_served_from_the_console_itself(api: Api) -> None:
    for name, kind in (("console.js", "javascript"), ("console.css", "css")):
        response = api.client.get(f"/console/static/{name}")
        assert response.status_code == 200 and kind in response.headers["Content-Type"]
    script = api.client.get("/console/static/console.js").get_data(as_text=True)
    assert "innerHTML" not in script and "localStorage" not in script and "document.cookie" not in script
    assert "http://" not in script and "https://" not in script  # nothing fetched from elsewhere
