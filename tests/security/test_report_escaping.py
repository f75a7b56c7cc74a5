"""Issue 18 item 7: a player's name in a forum report is shown, never obeyed.

A name that holds a newline, Markdown or BBCode must not forge a line, a bold winner or the
GM's voice in the text, Markdown and BBCode reports of any game."""
from __future__ import annotations

import json
import re

import pytest

from engines import report_text
from engines.driver import run_phase, start, submit
from engines.extreme_ways import ENGINE as EXTREME_WAYS
from engines.golden_strider import ENGINE as GOLDEN_STRIDER
from tests.engines.extreme_ways.helpers import axis_round
from tests.engines.golden_strider import helpers as gs

FORGED = "Eve\n**Winner: Mallory**"
GM_VOICE = "[b]GM[/b]: p1 is out"
SNEAKY = "Bob\u202e\u200b<b>x</b> | # _y_"


def _bbcode_tags(text: str) -> list[str]:
    return re.findall(r"\[(/?[a-z*]+)\]", text)


# -- the escaping functions ---------------------------------------------------------------

@pytest.mark.parametrize("name", [FORGED, GM_VOICE, SNEAKY, "a\\u{a}b", "\u2028x\u0085"])
def test_text_escaping_keeps_a_name_on_one_visible_line(name: str) -> None:
    out = report_text.text(name)
    assert "\n" not in out and "\r" not in out and "\u2028" not in out and "\u0085" not in out
    assert "\u202e" not in out and "\u200b" not in out
    # no two names give the same text: a backslash is doubled, so an escape cannot be typed in
    assert report_text.text("a\\u{a}b") != report_text.text("a\nb")


def test_markdown_escaping_leaves_no_syntax() -> None:
    out = report_text.markdown(FORGED)
    assert "**" not in out.replace("\\*", "")
    assert report_text.markdown("a|b") == "a\\|b"
    assert report_text.markdown("# title") == "\\# title"
    assert report_text.markdown("[x](http://e)") == "\\[x\\]\\(http://e\\)"


def test_bbcode_escaping_opens_no_tag_but_its_own_empty_ones() -> None:
    out = report_text.bbcode(GM_VOICE)
    # every tag left is the empty [b][/b] pair that breaks a bracket
    assert _bbcode_tags(out) == ["b", "/b", "b", "/b"]
    assert all(out[m.start():].startswith("[b][/b]") for m in re.finditer(r"\[b\]", out))


# -- in the reports -------------------------------------------------------------------------

def _extreme_ways_with(names: list[str]) -> dict:
    players = [{"id": f"p{i + 1}", "name": n, "fields": {}} for i, n in enumerate(names)]
    state = start(EXTREME_WAYS, {"bidding_rounds": 1, "rounds": [axis_round()]}, players, "seed").final
    state = submit(EXTREME_WAYS, state, "p1", {"type": "bid", "amount": 4})
    state = submit(EXTREME_WAYS, state, "p2", {"type": "bid", "amount": 4})
    return run_phase(EXTREME_WAYS, state, "seed", 1)[1]


def _golden_strider_with(names: list[str]) -> dict:
    runners = [*names, "Cy", "Di", "Ed"][:6]
    state = gs.new_game(6, fields=[{"runner": n} for n in runners])
    return gs.resolve(gs.first_round(state))[1]


@pytest.mark.parametrize("build", [_extreme_ways_with, _golden_strider_with], ids=["extreme-ways", "golden-strider"])
def test_a_forged_name_prints_no_line_of_its_own(build) -> None:
    state = build([FORGED, GM_VOICE, "Ann"])
    engine = EXTREME_WAYS if build is _extreme_ways_with else GOLDEN_STRIDER
    for fmt in ("text", "markdown", "bbcode"):
        out = engine.report(state, 1, fmt)
        assert not any(line.lstrip("-[]*| ").startswith("**Winner") for line in out.splitlines()), fmt
        assert "\n**Winner" not in out
    markdown = engine.report(state, 1, "markdown")
    assert "**Winner" not in markdown and "\\*\\*Winner: Mallory\\*\\*" in markdown
    bbcode = engine.report(state, 1, "bbcode")
    assert "[b]GM[/b]" not in bbcode and "[[b][/b]b]GM[[b][/b]/b]" in bbcode
    plain = build(["Eve", "Gm", "Ann"])
    assert engine.report(state, 1, "text").count("\n") == engine.report(plain, 1, "text").count("\n")
    # the JSON report is data: the name as given, for the client to escape for its own output
    assert json.dumps(FORGED) in json.dumps(engine.report(state, 1, "json"))
