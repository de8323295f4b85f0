"""Argument values per parameter: does the engine read the upstream's value, and where is it?

For every step of development traffic where the upstream called a tool, the engine fills *the
upstream's tool* (the learning path's `fill_tool`: no ranking, no learned state), in process, and
each upstream argument is counted as

- `agree`: the engine gave the same value (the proxy's comparison; BFCL: its checker's rule);
- `misread`: the engine gave another value (the figure that must not rise);
- `missing`: the engine left it out, or abstained (then none of its values is served);

and by where the upstream's value is written (`grounding.grounded`, first match in this order):
the last user turn, an earlier user turn, a tool result, the system prompt, or nowhere (a value
looked up, a date worked out, a rewrite). Parameters the engine sets and the upstream does not
are counted as `extra` per traffic.

Traffic: the help-desk agent's, the shop agent's (its shadow stream) and the travel agent's
recorded steps (bench/learning_helpdesk.py, bench/learning_shop.py, bench/learning_demo.py) and
BFCL development files only (`live_simple`, `live_multiple`, `parallel`, `parallel_multiple`,
`exec_*`; the first call of a parallel answer).

With `--state` (a kept bench database, `SHADOWSWITCH_BENCH_KEEP_DB`), the engine fills with the
learned state that database serves, on the agent's *held-out* steps instead (the shop's test
customers, the help desk's held-out wordings): the values after learning, on traffic it never saw.

    python -m bench.arguments_eval [--traffic helpdesk travel bfcl] [--bfcl-limit 40]
    python -m bench.arguments_eval --traffic shop --state /tmp/shop.db --label learned
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.offered import among, offered_values
from shadowswitch.engines.local.arguments.grounding import grounded
from shadowswitch.request import ChatView, message_text, normalise

OUTPUT = Path("bench/results/arguments_eval.json")
BFCL_FILES = (
    *("live_simple", "live_multiple", "parallel", "parallel_multiple"),
    *("exec_simple", "exec_multiple", "exec_parallel", "exec_parallel_multiple"),
)
WHERE = ("last_user", "earlier_user", "tool_result", "system", "nowhere")
OUTCOMES = ("agree", "misread", "missing")
BATCH = 8


@dataclass(frozen=True)
class Item:
    """One upstream call to compare with: the request, the tool, its arguments, and how a value
    of the engine's is judged against the upstream's for a parameter."""

    traffic: str
    request: dict[str, Any]
    tool: str
    arguments: dict[str, Any]  # the upstream's values (BFCL: the first acceptable one)
    same: Callable[[str, Any], bool]  # (parameter, engine's value) → agrees
    scorer: str  # the policy's scorer for this traffic


def where(value: Any, view: ChatView) -> str:
    """Where the value is written, first of WHERE."""
    users = [i for i, m in enumerate(view.messages) if m.get("role") == "user" and message_text(m).strip()]
    last = users[-1] if users else None
    texts: dict[str, list[str]] = defaultdict(list)
    for i, m in enumerate(view.messages):
        role, text = m.get("role"), message_text(m)
        if role == "user":
            texts["last_user" if i == last else "earlier_user"].append(text)
        elif role in ("tool", "function"):
            texts["tool_result"].append(text)
        elif role in ("system", "developer"):
            texts["system"].append(text)
    for place in WHERE[:-1]:
        if any(grounded(value, t) for t in texts[place]):
            return place
    return "nowhere"


def agent_items(name: str, steps: list[Any]) -> Iterator[Item]:
    for step in steps:
        if "name" not in step.answer:
            continue
        want = step.answer["arguments"]
        yield Item(
            name,
            step.request,
            step.answer["name"],
            want,
            lambda p, v, want=want: normalise(v) == normalise(want[p]),
            "embedding",
        )


def helpdesk() -> Iterator[Item]:
    from bench.learning_helpdesk import PER_TEMPLATE, record
    from examples.helpdesk.task_set import written_out

    yield from agent_items("helpdesk", record(written_out(PER_TEMPLATE)))


def shop(held_out: bool = False) -> Iterator[Item]:
    """The shop agent's stream steps, or its held-out customers' (`held_out`)."""
    from bench.learning_shop import shop_steps

    yield from agent_items("shop", shop_steps()[int(held_out)])


def held_out_helpdesk() -> Iterator[Item]:
    """The help desk's steps worded in the templates its curve holds out."""
    from bench.learning_helpdesk import helpdesk_steps

    yield from agent_items("helpdesk", helpdesk_steps()[1])


def learned_state(db_file: Path, task: str) -> Any:
    """The learned state a kept bench database serves for `task` (None: it serves the prior)."""
    from shadowswitch.learning.served import ServedMemories
    from shadowswitch.store import db
    from shadowswitch.store.exemplars import ExemplarStore

    if not db_file.exists():
        raise SystemExit(f"no such database: {db_file}")
    return ServedMemories(ExemplarStore(db.make_engine(f"sqlite:///{db_file}"))).load(task)


def travel() -> Iterator[Item]:
    from bench.learning_demo import record
    from examples.travel_agent.task_sets import tasks_in

    yield from agent_items("travel", record(tasks_in("en")))


def bfcl(limit: int | None) -> Iterator[Item]:
    from bench.bfcl.checker import check_param, find_parameters
    from bench.bfcl.data import load_cases

    for category in BFCL_FILES:
        for case in load_cases(category, limit):
            if not case.answers or not case.tools:
                continue
            bfcl_name, answer = next(iter(case.answers[0].items()))
            tool = {b: o for o, b in case.name_map.items()}.get(bfcl_name, bfcl_name)
            schema = (find_parameters(case.tools, tool) or {}).get("properties", {})
            want = {k: v[0] for k, v in answer.items() if v and v[0] != ""}

            def same(
                p: str, v: Any, answer: dict[str, Any] = answer, schema: dict[str, Any] = schema
            ) -> bool:
                return check_param(p, v, answer[p], schema.get(p, {})) is None

            yield Item("bfcl", case.request, tool, want, same, "hybrid")


def policy_for(scorer: str) -> Any:
    from shadowswitch.policy.models import Policy

    return Policy.model_validate(
        {
            "task_type": "eval",
            "upstream": {"model": "openai/none", "api_base": "http://127.0.0.1:9/v1"},
            "engine": {"scorer": scorer, "max_candidates": 64},
            "feedback": {"tool_error_regex": r"^error:"},
        }
    )


def evaluate(items: list[Item], engine: Any, states: dict[str, Any] | None = None) -> dict[str, Any]:
    """Counts per traffic: outcome × where, calls whose arguments all agree, extras, examples."""
    from shadowswitch.engines.local.decider import Job

    policies = {s: policy_for(s) for s in {i.scorer for i in items}}
    out: dict[str, Any] = {}
    for start in range(0, len(items), BATCH):
        chunk = items[start : start + BATCH]
        views = [ChatView.parse({"model": "agent", **i.request}) for i in chunk]
        states = states or {}
        jobs = [
            Job(v, policies[i.scorer], states.get(i.traffic), i.tool)
            for v, i in zip(views, chunk, strict=True)
        ]
        choices = engine.engine.decide_batch(jobs)
        if start % (BATCH * 25) == 0:
            print(f"{start + len(chunk)}/{len(items)}", file=sys.stderr, flush=True)
        for item, view, choice in zip(chunk, views, choices, strict=True):
            served = {} if choice.abstain_reason else dict(choice.arguments or {})
            tally = out.setdefault(item.traffic, _empty())
            tally["calls"] += 1
            call_ok = True
            offered = offered_values(engine, view, item.tool, choice)
            for param, value in item.arguments.items():
                place = where(value, view)
                tally["offered"][place] += int(among(value, offered.get(param, [])))
                if param not in served:
                    outcome = "missing"
                elif item.same(param, served[param]):
                    outcome = "agree"
                else:
                    outcome = "misread"
                call_ok &= outcome == "agree"
                tally["arguments"][outcome] += 1
                tally["by_where"][place][outcome] += 1
                tally["by_param"][f"{item.tool}.{param}"][outcome] += 1
                if param in served:  # which reader gave the value served
                    kind = str(((choice.sources or {}).get(param) or {}).get("source") or "unknown")
                    tally["by_source"][kind][outcome] += 1
                if outcome == "misread" and len(tally["misread_examples"]) < 40:
                    tally["misread_examples"].append(
                        {
                            "tool": item.tool,
                            "param": param,
                            "upstream": value,
                            "engine": served[param],
                            "where": place,
                            "source": (choice.sources or {}).get(param),
                        }
                    )
            said = _said(view)
            tally["invented"] += sum(
                not grounded(v, said) and written not in said
                for v, written in _copied(served, choice.sources or {})
            )
            extra = set(served) - set(item.arguments)
            tally["extra"] += len(extra)
            tally["calls_agreeing"] += int(call_ok and not extra)
            tally["abstained"] += int(bool(choice.abstain_reason))
            for source in (choice.sources or {}).values() if not choice.abstain_reason else ():
                where_served = _source_place(source, view)
                tally["served_from"][where_served] += 1
    return {name: _plain(t) for name, t in out.items()}


def _said(view: ChatView) -> str:
    """Everything the conversation says: its messages' text and the arguments of its calls."""
    calls = [
        json.dumps(c.get("function"), ensure_ascii=False)
        for m in view.messages
        for c in m.get("tool_calls") or []
    ]
    return "\n".join([*(message_text(m) for m in view.messages), *calls])


def _copied(served: dict[str, Any], sources: dict[str, Any]) -> list[tuple[Any, str]]:
    """The served values read from the conversation (not a default, a constant or the decoder's),
    each with the text it was read from ("tomorrow" for a date)."""
    found = {k: sources.get(k) or {} for k in served}
    return [(v, str(found[k].get("text", ""))) for k, v in served.items() if found[k].get("source") == "text"]


def _source_place(source: dict[str, Any], view: ChatView) -> str:
    message = source.get("message")
    if not isinstance(message, int):
        return str(source.get("source"))
    role = view.messages[message].get("role")
    last = max(i for i, m in enumerate(view.messages) if m.get("role") == "user") if view.user_texts else -1
    if role == "user":
        return "last_user" if message == last else "earlier_user"
    return "tool_result" if role in ("tool", "function") else str(role)


def _empty() -> dict[str, Any]:
    return {
        "calls": 0,
        "calls_agreeing": 0,
        "abstained": 0,
        "extra": 0,
        "invented": 0,  # served values read from the text that the conversation does not hold
        "arguments": Counter(),
        "by_where": defaultdict(Counter),
        "by_param": defaultdict(Counter),  # tool.param: the outcomes of its arguments
        "by_source": defaultdict(Counter),  # the served value's source: agree or misread
        "served_from": Counter(),
        "offered": Counter(),  # by where: the upstream's value was among the engine's offers
        "misread_examples": [],
    }


def _plain(tally: dict[str, Any]) -> dict[str, Any]:
    return {
        **tally,
        "arguments": {o: tally["arguments"][o] for o in OUTCOMES},
        "by_where": {
            w: {o: tally["by_where"][w][o] for o in OUTCOMES} for w in WHERE if w in tally["by_where"]
        },
        "by_param": {k: {o: n for o, n in c.items() if n} for k, c in sorted(tally["by_param"].items())},
        "by_source": {k: dict(c) for k, c in sorted(tally["by_source"].items())},
        "served_from": dict(tally["served_from"]),
        "offered": dict(tally["offered"]),
        "offered_share": round(sum(tally["offered"].values()) / max(1, sum(tally["arguments"].values())), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--traffic",
        nargs="+",
        choices=("helpdesk", "shop", "travel", "bfcl"),
        default=["helpdesk", "shop", "travel", "bfcl"],
    )
    parser.add_argument("--bfcl-limit", type=int, default=40, help="cases per BFCL file (even stride)")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--label", default="current", help="the key the results are kept under in --output")
    parser.add_argument(
        "--state", type=Path, help="a kept bench database: fill with its learned state, on held-out steps"
    )
    args = parser.parse_args()

    from shadowswitch.engines.local import create_engine

    items: list[Item] = []
    sources = {"helpdesk": helpdesk, "shop": shop, "travel": travel, "bfcl": lambda: bfcl(args.bfcl_limit)}
    if args.state is not None:
        if not set(args.traffic) <= {"shop", "helpdesk"}:
            parser.error(
                "--state reads the shop's or the help desk's learned state: --traffic shop or helpdesk"
            )
        sources = {"shop": lambda: shop(held_out=True), "helpdesk": held_out_helpdesk}
    for name in args.traffic:
        items += list(sources[name]())
    states = {t: learned_state(args.state, t) for t in args.traffic} if args.state is not None else {}
    engine = create_engine("embedded")
    started = time.perf_counter()
    try:
        results = evaluate(items, engine, states)
    finally:
        engine.close()
    results_all = json.loads(args.output.read_text()) if args.output.exists() else {}
    results_all[args.label] = {
        "command": "python -m bench.arguments_eval --traffic "
        + " ".join(args.traffic)
        + (f" --state {args.state.name}" if args.state is not None else ""),
        "bfcl_limit": args.bfcl_limit,
        "seconds": round(time.perf_counter() - started, 1),
        "traffic": results,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results_all, indent=1, default=str) + "\n")
    for name, tally in results.items():
        print(name, tally["calls"], "calls,", tally["calls_agreeing"], "agree whole;", tally["arguments"])
        print("  invented", tally["invented"], "abstained", tally["abstained"])
        print("  offered", tally["offered_share"], tally["offered"])
        for place, counts in tally["by_where"].items():
            print(f"  {place:13} {counts}")


if __name__ == "__main__":
    main()
