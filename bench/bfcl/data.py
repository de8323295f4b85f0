"""Load BFCL cases from the installed `bfcl-eval` package as OpenAI Chat Completions requests.

Only the package's data files are read; no `bfcl_eval` module is imported
(its own dependencies are not installed). Function docs are converted to
OpenAI tools the way BFCL does for OpenAI function-calling models
(`convert_to_tool(..., GORILLA_TO_OPENAPI, OPENAI_COMPLETIONS)` plus the
Python language hint), so the local engine sees what GPT-4o would see.
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from shadowswitch.engines.local.arguments.lists import as_json

TEST_CATEGORIES = ("simple_python", "multiple", "irrelevance")
# BFCL's retired executable files (`data/unused_datasets/`): written questions, each answered by
# one call string ("f(n=20, p=0.6)") that `parse_call` turns into the possible-answer format.
EXEC_CATEGORIES = ("exec_simple", "exec_multiple", "exec_parallel", "exec_parallel_multiple")
DEV_CATEGORIES = (
    *("live_simple", "live_multiple", "live_irrelevance", "live_relevance"),
    *("parallel", "parallel_multiple"),  # written like the test files; calibrate's "formal" style
    *EXEC_CATEGORIES,
)
CATEGORIES = TEST_CATEGORIES + DEV_CATEGORIES

# BFCL's constants/type_mappings.py GORILLA_TO_OPENAPI (the Python/JSON part of it).
GORILLA_TO_OPENAPI = {
    "integer": "integer",
    "number": "number",
    "float": "number",
    "string": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "dict": "object",
    "object": "object",
    "tuple": "array",
    "any": "string",
}
PYTHON_HINT = " Note that the provided function is in Python 3 syntax."


@dataclass(frozen=True)
class BfclCase:
    """One BFCL entry, ready to send: `request` is a Chat Completions body without `model`.

    `answers` is BFCL's ground truth (`[{bfcl_name: {param: [acceptable values]}}]`),
    None for (ir)relevance. `name_map` maps the OpenAI tool name back to BFCL's name.
    """

    id: str
    category: str
    request: dict[str, Any]
    answers: list[dict[str, Any]] | None
    name_map: dict[str, str]

    @property
    def expects_call(self) -> bool:
        """Irrelevance cases are right only with no tool call; all others need one."""
        return "irrelevance" not in self.category

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The OpenAI `tools` list of the request."""
        return list(self.request.get("tools", []))


def bfcl_data_dir() -> Path:
    """The `data/` folder of the installed bfcl-eval package (found without importing it)."""
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("bfcl-eval is not installed: pip install --no-deps bfcl-eval")
    return Path(spec.submodule_search_locations[0]) / "data"


def openai_name(name: str) -> str:
    """OpenAI names match ^[a-zA-Z0-9_-]{1,64}$: BFCL replaces dots with underscores."""
    return re.sub(r"\.", "_", name)


def convert_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """One BFCL parameter schema → JSON schema, recursing into properties and items."""
    out = dict(schema)
    bfcl_type = schema.get("type")
    out["type"] = GORILLA_TO_OPENAPI.get(bfcl_type, "string") if bfcl_type else "string"
    if bfcl_type == "float":
        out["format"] = "float"
        out["description"] = schema.get("description", "") + " This is a float type value."
    if isinstance(schema.get("properties"), dict):
        out["properties"] = convert_properties(schema["properties"])
    if isinstance(schema.get("items"), dict):
        out["items"] = convert_schema(schema["items"])
    return out


def convert_properties(properties: dict[str, Any]) -> dict[str, Any]:
    """Convert every property schema of a parameters object."""
    return {key: convert_schema(value) for key, value in properties.items()}


def function_to_tool(function: dict[str, Any], python_hint: bool = True) -> dict[str, Any]:
    """One BFCL function doc → one OpenAI `{"type": "function", "function": ...}` tool."""
    item = copy.deepcopy(function)
    item["name"] = openai_name(item["name"])
    if python_hint:
        item["description"] = item.get("description", "") + PYTHON_HINT
    params = item.setdefault("parameters", {})
    params["type"] = "object"
    params["properties"] = convert_properties(params.get("properties", {}))
    return {"type": "function", "function": item}


def entry_to_case(entry: dict[str, Any], category: str, answers: list[dict[str, Any]] | None) -> BfclCase:
    """A raw BFCL entry (plus its ground truth) → a BfclCase."""
    functions = entry["function"]
    request = {
        "messages": copy.deepcopy(entry["question"][0]),
        "tools": [function_to_tool(f) for f in functions],
    }
    name_map = {openai_name(f["name"]): f["name"] for f in functions}
    return BfclCase(entry["id"], category, request, answers, name_map)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def parse_call(call: str) -> dict[str, Any] | None:
    """`f(n=20, p=1/6)` → `{"f": {"n": [20], "p": [0.1667]}}`, each value the only acceptable
    one; None when a value is not a literal or plain arithmetic."""
    try:
        node = ast.parse(call, mode="eval").body
        if not isinstance(node, ast.Call) or node.args:
            return None
        name = ast.unparse(node.func)
        return {name: {k.arg: [_literal(k.value)] for k in node.keywords if k.arg}}
    except (SyntaxError, ValueError, ZeroDivisionError):
        return None


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div | ast.Mult | ast.Add | ast.Sub):
        left, right = _literal(node.left), _literal(node.right)
        ops = {
            ast.Div: lambda: left / right,
            ast.Mult: lambda: left * right,
            ast.Add: lambda: left + right,
            ast.Sub: lambda: left - right,
        }
        return ops[type(node.op)]()
    return as_json(ast.literal_eval(node))  # tuples as lists, as in BFCL's possible answers


def _exec_truth(calls: list[str]) -> list[dict[str, Any]] | None:
    parsed = [parse_call(c) for c in calls]
    return None if any(p is None for p in parsed) else parsed  # type: ignore[misc]


@cache
def _load_all(category: str) -> tuple[BfclCase, ...]:
    if category not in CATEGORIES:
        raise ValueError(f"unknown BFCL category {category!r}; known: {', '.join(CATEGORIES)}")
    data = bfcl_data_dir()
    question, answers = data / f"BFCL_v4_{category}.json", data / "possible_answer"
    if category in EXEC_CATEGORIES:
        question = data / "unused_datasets" / "question" / question.name
        answers = data / "unused_datasets" / "possible_answer"
    entries = _read_jsonl(question)
    answer_path = answers / question.name
    truth = {}
    if answer_path.exists():
        truth = {row["id"]: row["ground_truth"] for row in _read_jsonl(answer_path)}
    if category in EXEC_CATEGORIES:  # a call we cannot read has no answer to check against
        truth = {k: parsed for k, v in truth.items() if (parsed := _exec_truth(v)) is not None}
        entries = [e for e in entries if e["id"] in truth]
    return tuple(entry_to_case(e, category, truth.get(e["id"])) for e in entries)


def stride_indices(total: int, limit: int | None) -> list[int]:
    """`limit` indices spread evenly over `total` (all of them when limit is None or larger).

    BFCL files are grouped by domain/source, so the first N would be a biased
    sample; an even stride covers the whole file and is still deterministic.
    """
    if limit is None or limit >= total:
        return list(range(total))
    return [(i * total) // limit for i in range(max(limit, 0))]


def load_cases(category: str, limit: int | None = None) -> list[BfclCase]:
    """The cases of one category in file order; `limit` takes an even stride sample."""
    cases = _load_all(category)
    return [copy.deepcopy(cases[i]) for i in stride_indices(len(cases), limit)]
