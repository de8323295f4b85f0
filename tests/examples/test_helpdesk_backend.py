"""The help desk's back office and task set: real effects, refusals for bad input, checkable end states."""

from __future__ import annotations

import inspect
from collections import Counter

import pytest

from bench.learning_helpdesk import held_out_templates, split
from examples.helpdesk import FAMILIES, TASKS, ToolError, fresh_backend
from examples.helpdesk.operations import TOOLS as OPERATIONS
from examples.helpdesk.simulated import HelpdeskModel
from examples.helpdesk.tasks import Task, expected_state
from examples.helpdesk.tools import TOOLS


def test_the_task_set_is_large_multi_step_and_every_expected_call_behaves() -> None:
    assert len(TASKS) >= 120 and len({t.id for t in TASKS}) == len(TASKS)
    assert sum(len(t.turns) > 1 for t in TASKS) >= 30
    assert sum(sum(len(turn.calls) for turn in t.turns) >= 2 for t in TASKS) >= 100
    assert sum(c.fails for t in TASKS for turn in t.turns for c in turn.calls) >= 10
    for task in TASKS:
        backend = fresh_backend()
        for turn in task.turns:
            for call in turn.calls:
                if call.fails:
                    with pytest.raises(ToolError):
                        backend.call(call.name, dict(call.arguments))
                else:
                    backend.call(call.name, dict(call.arguments))
        assert task.check(backend), task.id


def test_every_template_is_written_out_for_several_entities_and_the_split_holds_out_whole_templates() -> None:
    templates = Counter(t.template for t in TASKS)
    assert len(templates) >= 80 and min(templates.values()) >= 2
    assert all(len(f.templates) >= 4 for f in FAMILIES)
    stream, test = split(TASKS)
    assert {t.template for t in stream}.isdisjoint({t.template for t in test})
    assert {t.template for t in test} == held_out_templates()
    assert {t.kind for t in test} == {t.kind for t in stream} == {f.kind for f in FAMILIES}
    assert len({int(t.template.split("/")[1]) for t in test}) == 4  # not always the same phrasing


def test_the_same_words_always_expect_the_same_calls() -> None:
    seen: dict[str, object] = {}
    for task in TASKS:
        for turn in task.turns:
            assert seen.setdefault(turn.user, turn.calls) == turn.calls, turn.user


def test_the_tools_offered_match_the_operations_behind_them() -> None:
    assert len(TOOLS) >= 25
    for tool in TOOLS:
        function = tool["function"]
        params = inspect.signature(OPERATIONS[function["name"]]).parameters
        names = [n for n in params if n != "b"]
        assert list(function["parameters"]["properties"]) == names, function["name"]
        required = [n for n in names if params[n].default is inspect.Parameter.empty]
        assert function["parameters"]["required"] == required, function["name"]


def test_a_task_fails_when_nothing_or_the_wrong_thing_was_done() -> None:
    untouched = [t for t in TASKS if t.check(fresh_backend())]
    # only a request that changes nothing passes untouched: refused calls, a priority it already has
    assert len(untouched) <= 8
    assert all(expected_state(t) == fresh_backend().state() for t in untouched)
    task = next(t for t in TASKS if t.kind == "vpn_grant")
    wrong = fresh_backend()
    call = task.turns[0].calls[0]
    wrong.call(call.name, {**call.arguments, "until": "2027-06-30"})
    assert not task.check(wrong)


def test_a_lookup_is_part_of_the_state_so_skipping_it_is_seen() -> None:
    task = next(t for t in TASKS if t.kind == "close" and len(t.turns[0].calls) == 2)
    skipped = fresh_backend()
    skipped.call("close_ticket", dict(task.turns[0].calls[1].arguments))
    assert not task.check(skipped)


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("grant_vpn_access", {"username": "pnair", "until": "next Monday"}, "YYYY-MM-DD"),
        ("grant_vpn_access", {"username": "pnair", "until": "2027-02-30"}, "no such date"),
        ("grant_vpn_access", {"username": "pnair", "until": "2026-12-01"}, "from tomorrow"),
        ("unlock_account", {"username": "okoval"}, "not locked"),
        ("reset_password", {"username": "pleclerc"}, "disabled"),
        ("assign_licence", {"username": "pnair", "product": "Tableau"}, "no free Tableau seat"),
        ("assign_licence", {"username": "skim", "product": "figma"}, "already has"),
        ("close_ticket", {"ticket_id": "INC-1009", "resolution": "fixed"}, "already closed"),
        ("close_ticket", {"ticket_id": "INC-1001", "resolution": "solved"}, "must be one of"),
        ("get_ticket", {"ticket_id": "INC-9999"}, "not found"),
        ("assign_ticket", {"ticket_id": "INC-1001", "assignee": "pnair"}, "not an IT technician"),
        ("install_software", {"asset_tag": "PH-2203", "package": "Zoom"}, "not an active laptop"),
        ("install_software", {"asset_tag": "LT-4402", "package": "Minesweeper"}, "catalogue"),
        ("set_mailbox_quota", {"username": "pnair", "quota_gb": "double"}, "whole number"),
        ("set_mail_forwarding", {"username": "pnair", "forward_to": "yuki mori"}, "not an email"),
        ("add_to_group", {"username": "skim", "group": "design-assets"}, "already in"),
        ("revoke_vpn_access", {"username": "pnair"}, "no VPN"),
        ("find_user", {"query": "x"}, "two letters"),
        ("get_user", {"user": "pnair"}, "bad arguments"),
        ("format_disk", {}, "unknown tool"),
    ],
)
def test_the_back_office_refuses_bad_input(name: str, arguments: dict[str, object], message: str) -> None:
    with pytest.raises(ToolError, match=message):
        fresh_backend().call(name, arguments)


def test_changes_happen_and_ids_are_read_as_users_write_them() -> None:
    b = fresh_backend()
    made = b.call(
        "create_ticket", {"requester": "PNair", "summary": "Dock  not charging", "priority": "High"}
    )
    assert (
        made["ticket_id"] == "INC-2001"
        and made["summary"] == "Dock not charging"
        and made["priority"] == "high"
    )
    assert b.call("assign_ticket", {"ticket_id": "inc-2001", "assignee": "kbauer"})["status"] == "in_progress"
    b.call("close_ticket", {"ticket_id": "INC-2001", "resolution": "workaround"})
    assert b.state()["tickets"]["INC-2001"]["status"] == "closed"
    assert b.call("check_licence", {"product": "visio"}) == {"product": "Visio", "seats": 4, "free": 2}
    b.call("grant_vpn_access", {"username": "pnair", "until": "2027-03-15"})
    assert b.state()["users"]["pnair"]["vpn_until"] == "2027-03-15"
    assert "get_ticket INC-2001" not in b.state()["looked_up"]


def _turn(task: Task) -> object:
    return next(turn for turn in task.turns if any(c.fails for c in turn.calls))


def test_the_simulated_model_takes_a_refusal_as_done_but_retries_an_unreadable_call() -> None:
    model = HelpdeskModel(error_rate=0.0)
    task = next(t for t in TASKS if t.kind == "password_disabled")
    turn = _turn(task)
    found = {"role": "tool", "content": '{"users": []}'}
    refused = {"role": "tool", "content": "error: the account pleclerc is disabled"}
    unreadable = {
        "role": "tool",
        "content": "error: the arguments are not valid JSON (x); send the call again",
    }
    assert model.next_call(turn, [found, refused]) is None  # the model now tells the user
    assert model.next_call(turn, [found, unreadable]) == turn.calls[1]  # type: ignore[attr-defined]
    other = next(t for t in TASKS if t.kind == "unlock")
    assert model.next_call(other.turns[0], [found, refused]) == other.turns[0].calls[1]


def test_expected_state_says_which_task_is_broken() -> None:
    broken = Task(
        "x-1a",
        (
            TASKS[0]
            .turns[0]
            .__class__(
                "hi", (TASKS[0].turns[0].calls[0].__class__("get_ticket", {"ticket_id": "INC-4242"}),)
            ),
        ),
        "x",
        "x/1",
    )
    with pytest.raises(AssertionError, match="x-1a"):
        expected_state(broken)
