"""`shadowswitch learn`: fit a challenger from the exemplars, and promote it if it is better."""

from __future__ import annotations

import getpass
import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from shadowswitch.cli.common import DbOpt, console, err, open_stores, settings_from


def learn_command(
    what: Annotated[str | None, typer.Argument(help="TASK, or `rollback` / `status`")] = None,
    task: Annotated[str | None, typer.Argument(help="Task type (after rollback / status)")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Judge a challenger, change nothing")] = False,
    follow: Annotated[
        bool, typer.Option("--follow", help="Be the deployment's trainer: learn every task type, in rounds")
    ] = False,
    interval: Annotated[float, typer.Option(help="Seconds between rounds (--follow)", min=0.1)] = 60.0,
    policies: Annotated[Path | None, typer.Option(help="Policy directory [default ./policies]")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="The figures as JSON")] = False,
    db: DbOpt = None,
) -> None:
    """Learn from a task type's pairs: learn TASK [--dry-run] | rollback TASK | status [TASK] |
    --follow [--interval S]."""
    from shadowswitch.learning import challenger

    if follow:
        from shadowswitch.cli.follow import follow as follow_rounds

        follow_rounds(db, policies, interval)
        return
    if what is None:
        err.print("error: name a task type, `status` or `rollback TASK`, or give --follow")
        raise typer.Exit(2)
    store, engines = learning_stores(db, policies)
    if what == "status":
        tasks = [task] if task else sorted(engines)
        shown = [challenger.status(store, t, engines.get(t) or _engine_defaults()) for t in tasks]
        if as_json:
            console.print_json(json.dumps(shown))
        for entry in [] if as_json else shown:
            console.print(_learning_table(entry))
            console.print(versions_table(entry))
            if entry.get("tools"):
                console.print(_tools_table(entry))
        return
    if what == "rollback":
        if not task:
            err.print("error: name the task type: shadowswitch learn rollback TASK")
            raise typer.Exit(2)
        result = challenger.rollback(store, task, actor=f"cli:{getpass.getuser()}")
    else:
        result = _learn_locked(store, what, engines.get(what) or _engine_defaults(), dry_run)
    if as_json:
        console.print_json(json.dumps(result))
    else:
        console.print(_learn_line(result))


def learning_stores(db: str | None, policies: Path | None) -> tuple[Any, dict[str, Any]]:
    from shadowswitch.errors import PolicyError
    from shadowswitch.policy import load_policies
    from shadowswitch.store.exemplars import ExemplarStore

    rollouts, _ = open_stores(db)
    directory = Path(policies or settings_from().policies)
    loaded = None  # no policy directory here: the defaults of the engine section apply
    if policies is not None or directory.is_dir():  # one named, or one found: it must be valid
        try:
            loaded = load_policies(directory)
        except PolicyError as exc:
            for line in exc.problems:
                err.print(f"error: {line}", highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
    engines = {t: p.engine for t, p in loaded.policies.items()} if loaded else {}
    return ExemplarStore(rollouts.engine), engines


def _engine_defaults() -> Any:
    from shadowswitch.policy.models import Engine

    return Engine()


def _learn_locked(store: Any, task: str, engine: Any, dry_run: bool) -> dict[str, Any]:
    """One run, holding the task type's trainer lock as the replicas' learners do (a dry run too:
    it would judge what the trainer is changing)."""
    from shadowswitch.store.locks import try_lock

    with try_lock(store.engine, f"learn:{task}") as held:
        if not held:
            err.print(f"error: another trainer is learning {task} now; try again when it is done")
            raise typer.Exit(1)
        return _learn_with_progress(store, task, engine, dry_run)


def _learn_with_progress(store: Any, task: str, engine: Any, dry_run: bool) -> dict[str, Any]:
    from rich.progress import Progress

    from shadowswitch.learning import challenger

    with Progress(console=err, transient=True) as progress:
        bar = progress.add_task(f"learning {task}", total=1.0)

        def step(name: str, done: float) -> None:
            progress.update(bar, completed=done, description=f"learning {task}: {name}")

        actor = f"cli:{getpass.getuser()}"
        return challenger.learn(store, task, engine, actor=actor, dry_run=dry_run, progress=step)


def _learn_line(result: dict[str, Any]) -> str:
    evaluation = result.get("evaluation") or {}
    head = f"{result['task_type']}: {result['status']} (served version {result.get('served_version')}"
    head += f" → {result['version']})" if "version" in result else ")"
    if evaluation and "wins" not in evaluation:  # promotion on certificates
        c, s = evaluation["challenger"], evaluation["served"]
        head += (
            f"; held-out {evaluation['held_out']} pairs: challenger serves {c['serves_held_out']}"
            f" ({_region(c)}), served state {s['serves_held_out']} ({_region(s)})"
        )
    elif evaluation:
        c, s = evaluation["challenger"], evaluation["served"]
        head += (
            f"; held-out {c['pairs']} pairs: challenger agreement {c['agreement']} coverage {c['coverage']},"
            f" served agreement {s['agreement']} coverage {s['coverage']};"
            f" {evaluation['wins']} wins, {evaluation['losses']} losses"
        )
    why = result.get("why_not") or evaluation.get("why_not")
    return head + (f"; {why}" if why else "") + _misses(evaluation.get("challenger") or {}) + _learned(result)


def _learned(result: dict[str, Any]) -> str:
    """The values the challenger learned to fill otherwise (`rules.learned_report`), by kind."""
    from shadowswitch.engines.local.learned_state import POINTER, SET  # the engine's package: slow to import

    ranked, setting = [], []
    for tool, params in (result.get("rankings") or {}).items():
        for param, weights in params.items() if tool != POINTER else ():
            if any(not k.startswith(SET) for k in weights):
                ranked.append(f"{tool}.{param}")
            if any(k.startswith(SET) for k in weights):
                setting.append(f"{tool}.{param}")
    transforms = (result.get("transforms") or {}).items()
    rewritten = [f"{tool}.{param} ({name})" for tool, ps in transforms for param, name in ps.items()]
    kinds = (("values ranked", ranked), ("optional ones set per request", setting), ("rewritten", rewritten))
    said = [f"{kind}: {', '.join(names)}" for kind, names in kinds if names]
    return "\nlearned " + "; ".join(said) if said else ""


def _misses(certificate: dict[str, Any]) -> str:
    """The held-out misses at the threshold the certificate stopped at (`promotion.holding_back`)."""
    misses = certificate.get("misses") or []
    if not misses:
        return ""
    shown = ", ".join(
        f"{_missed(m)} at {m['confidence']} (decision {m.get('decision_id')})" for m in misses[:3]
    )
    missed = certificate.get("missed", len(misses))
    count = f"{missed} miss" if missed == 1 else f"{missed} misses"
    more = f" and {missed - 3} more" if missed > 3 else ""
    sets = certificate.get("tool_sets") or {}
    agent = (
        f" (all in one of the {sets['held_out']} tool sets it serves: one agent's; a policy of its"
        " own lets the others be judged without it)"
        if sets.get("misses") == 1 and sets.get("held_out", 0) > 1
        else ""
    )
    return f"\nheld back at ≥ {certificate.get('next_threshold')} by {count}: {shown}{more}{agent}"


def _missed(miss: dict[str, Any]) -> str:
    """What the engine answered wrong: another choice, or the same tool with other values."""
    if miss["chosen"] != miss["upstream"]:
        return f"{_said(miss['chosen'])} for {_said(miss['upstream'])}"
    values = miss.get("values")
    return (
        f"{miss['chosen']} with another {' and '.join(values)}"
        if values
        else f"{miss['chosen']} with other values"
    )


def _said(choice: str) -> str:
    return "a text reply" if choice == "__no_tool__" else choice


def _region(certificate: dict[str, Any]) -> str:
    if certificate.get("threshold") is None:
        return f"no certified region on {certificate['pairs']} pairs"
    return f"certified ≥ {certificate['threshold']} on {certificate['pairs']} pairs"


def _learning_table(entry: dict[str, Any]) -> Table:
    table = Table(title=f"learning: {entry['task_type']}")
    columns = ("pairs", "excluded", "fillers", "served version", "min_confidence", "agreement", "coverage")
    for column in columns:
        table.add_column(column)
    recent = entry["recent"]
    table.add_row(
        str(entry["pairs"]),
        str(entry["excluded"]),
        str(entry.get("fillers", 0)),
        str(entry["served_version"]),
        f"{entry['thresholds']['min_confidence']:g} ({entry['thresholds']['source']})",
        _num_or_dash(recent["agreement"]),
        _num_or_dash(recent["coverage"]),
    )
    return table


def versions_table(entry: dict[str, Any]) -> Table:
    """Each learned version: when promoted, what it learned from, its held-out figures at promotion,
    the live ones of the decisions made under it (`prior`: under none), and its certificate."""
    from shadowswitch.learning.versions import certificate_text

    table = Table(title=f"versions: {entry['task_type']} (held-out and live: agreement / coverage)")
    for column in (
        "version",
        "status",
        "promoted",
        "learned from",
        "held-out",
        "decisions",
        "live",
        "certificate",
    ):
        table.add_column(column)
    prior = entry["prior"]
    certified = certificate_text(prior.get("certificate"))
    table.add_row("0", "prior", "–", "–", "–", str(prior["decisions"]), _pair(prior), certified)
    for v in entry["versions"]:
        held = v["held_out"] or {"agreement": None, "coverage": None}
        learned = v["learned_from"]
        table.add_row(
            str(v["version"]),
            v["status"],
            v["created_at"][:19],
            "–" if learned is None else str(learned),
            _pair(held),
            str(v["live"]["decisions"]),
            _pair(v["live"]),
            certificate_text(v.get("certificate")),
        )
    return table


def _tools_table(entry: dict[str, Any]) -> Table:
    """The served state's record of the engine's calls per tool: a call's confidence falls back on
    it, and an unproven tool is never served, however sure the choice."""
    table = Table(title=f"tools: {entry['task_type']} (the served state's calls: agreed / judged)")
    for column in ("tool", "pairs", "calls agreed", "record", "served"):
        table.add_column(column)
    for t in entry["tools"]:
        served = "no: unproven" if t["unproven"] else "yes"
        table.add_row(
            t["tool"], str(t["pairs"]), f"{t['agreed']:g} / {t['judged']}", f"{t['record']:g}", served
        )
    return table


def _pair(figures: dict[str, Any]) -> str:
    return f"{_num_or_dash(figures['agreement'])} / {_num_or_dash(figures['coverage'])}"


def _num_or_dash(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"
