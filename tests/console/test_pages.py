"""The console's pages: served by the API, locked down by their headers, with no game data baked in."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from runtime.config import ConfigError, Settings
from runtime.context import Context
from service.app import create_app
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
        assert "<script type=\"module\" src=\"/console/static/console.js\"></script>" in html
        assert 'data-stream=""' in html  # this server names no stream process: the pages poll
        assert html.count("<script") == 1 and " style=" not in html  # nothing inline for the CSP to refuse


def test_a_game_id_in_the_path_is_escaped_in_the_page(api: Api) -> None:
    response = api.client.get('/console/games/"><img src=x onerror=alert(1)>')
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


SCRIPTS = sorted(p.name for p in (Path(__file__).parents[2] / "service" / "console" / "static").glob("*.js"))


def test_the_scripts_and_style_are_served_from_the_console_itself(api: Api) -> None:
    assert "console.js" in SCRIPTS and len(SCRIPTS) > 1
    for name, kind in (*((name, "javascript") for name in SCRIPTS), ("console.css", "css")):
        response = api.client.get(f"/console/static/{name}")
        assert response.status_code == 200 and kind in response.headers["Content-Type"], name
    for name in SCRIPTS:
        script = api.client.get(f"/console/static/{name}").get_data(as_text=True)
        assert "innerHTML" not in script and "localStorage" not in script and "document.cookie" not in script
        assert "http://" not in script and "https://" not in script  # nothing fetched from elsewhere
        assert "eval(" not in script and "insertAdjacentHTML" not in script
        for imported in re.findall(r'from "\./([\w.]+)"', script):
            assert imported in SCRIPTS, (name, imported)


def test_a_server_with_a_stream_names_it_to_the_pages_and_lets_them_connect_to_its_origin_only(
        settings: Settings) -> None:
    import dataclasses

    streaming = dataclasses.replace(settings, stream_url="http://streams.example:8001/v1")
    client = Api(create_app(Context(streaming)).test_client()).client
    response = client.get("/console/games/g1")
    assert 'data-stream="http://streams.example:8001/v1"' in response.get_data(as_text=True)
    csp = response.headers["Content-Security-Policy"]
    assert "connect-src 'self' http://streams.example:8001;" in csp
    assert csp.count("http") == 1  # nothing else from another origin


@pytest.mark.parametrize("value, expected", [
    ("", None), ("http://127.0.0.1:8001/v1", "http://127.0.0.1:8001/v1"),
    ("https://play.example/live/v1/", "https://play.example/live/v1")])
def test_the_stream_url_setting(monkeypatch: pytest.MonkeyPatch, value: str, expected: str | None) -> None:
    monkeypatch.setenv("ARBITER_STREAM_URL", value)
    assert Settings.from_env().stream_url == expected


@pytest.mark.parametrize("value", ["http://127.0.0.1:8001", "ftp://h/v1", "http://user:secret@h/v1", "http://h:x/v1",
                                   "http://h/v1?a=1", "http://h/v1#x", "/v1", "http://h;script-src */v1"])
def test_a_stream_url_that_cannot_work_stops_the_start(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("ARBITER_STREAM_URL", value)
    with pytest.raises(ConfigError, match="ARBITER_STREAM_URL") as refused:
        Settings.from_env()
    assert "secret" not in str(refused.value)
