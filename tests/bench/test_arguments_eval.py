"""`bench.arguments_eval`: its per-parameter counts and the learned state's options."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bench import arguments_eval

pytestmark = pytest.mark.unit


def test_a_learned_state_is_read_only_for_an_agent_with_held_out_steps(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "kept.db"
    monkeypatch.setattr(sys, "argv", ["arguments_eval", "--traffic", "bfcl", "--state", str(state)])
    with pytest.raises(SystemExit):
        arguments_eval.main()
    assert "--traffic shop or helpdesk" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="no such database"):
        arguments_eval.learned_state(state, "shop")


def test_each_parameter_is_counted_apart() -> None:
    tally = arguments_eval._empty()
    tally["by_param"]["get_order.order_id"]["agree"] += 2
    tally["by_param"]["get_order.order_id"]["missing"] += 1
    tally["by_param"]["cancel_order.reason"]["misread"] += 1
    plain = arguments_eval._plain(tally)
    assert plain["by_param"] == {
        "cancel_order.reason": {"misread": 1},
        "get_order.order_id": {"agree": 2, "missing": 1},
    }
