"""``orders.find_runner`` looks for the runner an order names in one pass over the field; it must find
the runner, or raise the error, that ``named_runner`` over ``own_runners`` (the plain search) gives, for
any field: runners sharing owners, withdrawn ones, names that are other runners' ids, case and spaces."""
from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.contract import RuleError
from engines.golden_strider import orders

OWNERS = st.sampled_from(["p1", "p2"])
NAMES = st.sampled_from(["r1", "R1", " r1 ", "Ann", "ann", "ß", "ss"])
RUNNER = st.fixed_dictionaries({"id": NAMES, "name": NAMES, "owner": OWNERS, "withdrawn": st.booleans()})


def _answer(call: Any, *args: Any) -> Any:
    """The runner found (the object itself), or the error's type, rule, message and details."""
    try:
        return ("ok", id(call(*args)))
    except RuleError as exc:
        return ("rule", exc.rule, exc.message, exc.details)
    except Exception as exc:
        return ("error", type(exc), str(exc))


@settings(max_examples=2000, deadline=None)
@given(runners=st.lists(RUNNER, max_size=6), actor=OWNERS, name=st.one_of(st.none(), NAMES, st.integers(0, 2)))
def test_the_runner_found_is_the_plain_searchs(runners: list[dict[str, Any]], actor: str, name: Any) -> None:
    state = {"runners": runners}
    plain = _answer(lambda: orders.named_runner(orders.own_runners(state, actor), name))
    assert _answer(orders.find_runner, state, actor, name) == plain
