"""Differential test: our checker agrees with BFCL's own ast_checker source on real cases.

BFCL's module cannot be imported (its dependencies are not installed), so its
source is read from the package, its imports replaced by stubs, and executed.
Calls are built from the ground truth and perturbed the ways models err.
"""

from __future__ import annotations

import copy
import enum
import json
import random
import types
from pathlib import Path
from typing import Any

import pytest

from bench.bfcl.checker import Call, check_case
from bench.bfcl.data import bfcl_data_dir, load_cases, openai_name


def bfcl_checker_module() -> types.ModuleType:
    source_path = bfcl_data_dir().parent / "eval_checker" / "ast_eval" / "ast_checker.py"
    source = Path(source_path).read_text()
    body = source[source.index("#### Constants ####") :]  # all before it is imports
    module = types.ModuleType("bfcl_ast_checker")

    class Language(enum.Enum):
        PYTHON = "python"
        JAVA = "java"
        JAVASCRIPT = "javascript"

    config = types.SimpleNamespace(underscore_to_dot=True)
    module.__dict__.update(
        re=__import__("re"),
        Language=Language,
        MODEL_CONFIG_MAPPING={"gpt": config},
        JAVA_TYPE_CONVERSION={},
        JS_TYPE_CONVERSION={},
    )
    exec(compile(body, str(source_path), "exec"), module.__dict__)
    return module


def raw_functions(category: str) -> dict[str, list[dict[str, Any]]]:
    path = bfcl_data_dir() / f"BFCL_v4_{category}.json"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {row["id"]: row["function"] for row in rows}


def first_value(acceptable: list[Any]) -> tuple[bool, Any]:
    values = [v for v in acceptable if v != ""]
    if not values:
        return False, None
    value = values[0]
    if isinstance(value, dict):
        picked = {k: first_value(v) for k, v in value.items()}
        return True, {k: v for k, (ok, v) in picked.items() if ok}
    return True, value


def perturb(args: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    out = copy.deepcopy(args)
    kind = rng.randrange(6)
    keys = list(out)
    if kind == 0 and keys:
        out.pop(rng.choice(keys))
    elif kind == 1:
        out["extra_param"] = "x"
    elif kind == 2 and keys:
        key = rng.choice(keys)
        value = out[key]
        out[key] = value.upper() + " " if isinstance(value, str) else value
    elif kind == 3 and keys:
        key = rng.choice(keys)
        value = out[key]
        out[key] = int(value) if isinstance(value, float) else value + 1 if type(value) is int else "zz"
    elif kind == 4 and keys:
        key = rng.choice(keys)
        out[key] = not out[key] if type(out[key]) is bool else [out[key]]
    return out


@pytest.mark.parametrize("category", ["simple_python", "multiple", "live_simple", "live_multiple"])
def test_agrees_with_bfcl_ast_checker(category: str) -> None:
    bfcl = bfcl_checker_module()
    functions = raw_functions(category)
    rng = random.Random(7)
    outcomes: list[bool] = []
    for case in load_cases(category, limit=120):
        name, answer = next(iter(case.answers[0].items()))  # type: ignore[index]
        picked = {k: first_value(v) for k, v in answer.items()}
        good = {k: v for k, (ok, v) in picked.items() if ok}
        for args in (good, perturb(good, rng), perturb(good, rng)):
            ours = check_case(case, [Call(openai_name(name), args)]).call_ok
            theirs = bfcl.ast_checker(
                copy.deepcopy(functions[case.id]),
                [{openai_name(name): copy.deepcopy(args)}],
                case.answers,
                bfcl.Language.PYTHON,
                category,
                "gpt",
            )["valid"]
            assert ours == theirs, (case.id, args)
            outcomes.append(ours)
    assert len(outcomes) >= 300 and 0.2 < sum(outcomes) / len(outcomes) < 0.8
