"""Load `policies/*.yaml` into a PolicySet; every problem is reported as `file:line: field: message`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from shadowswitch.errors import PolicyError
from shadowswitch.policy.models import Defaults, Policy, PolicySet

DEFAULTS_FILE = "_defaults.yaml"
_INHERITED = ("upstream", "rollout", "engine", "breaker", "feedback")


def load_policies(directory: Path) -> PolicySet:
    """Load and validate a policy directory; raise PolicyError listing every problem."""
    if not directory.is_dir():
        raise PolicyError([f"{directory}: not a directory"])
    problems: list[str] = []
    defaults_path = directory / DEFAULTS_FILE
    defaults_raw: dict[str, Any] = {}
    defaults = Defaults()
    if defaults_path.exists():
        parsed = _validate(defaults_path, Defaults, problems)
        if isinstance(parsed, Defaults):
            defaults = parsed
            defaults_raw = yaml.safe_load(defaults_path.read_text(encoding="utf-8"))
    policies: dict[str, Policy] = {}
    for path in sorted(directory.glob("*.y*ml")):
        if path.name.startswith("_"):
            continue
        policy = _validate(path, Policy, problems, base=defaults_raw)
        if not isinstance(policy, Policy):
            continue
        if policy.task_type in policies:
            problems.append(f"{path}:1: task_type: '{policy.task_type}' is defined twice")
            continue
        policies[policy.task_type] = policy
    if problems:
        raise PolicyError(problems)
    return PolicySet(defaults=defaults, policies=policies)


def _validate(
    path: Path, model: type[BaseModel], problems: list[str], base: dict[str, Any] | None = None
) -> BaseModel | None:
    try:
        text = path.read_text(encoding="utf-8")
        data = yaml.safe_load(text)
        root = yaml.compose(text)
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{path}:1: file: cannot read: {exc}")
        return None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        problems.append(f"{path}:{line}: yaml: {getattr(exc, 'problem', None) or exc}")
        return None
    if not isinstance(data, dict):
        problems.append(f"{path}:1: file: expected a mapping of fields, got {type(data).__name__}")
        return None
    if model is Policy and "upstream" not in data and not (base or {}).get("upstream"):
        problems.append(f"{path}:1: upstream: missing, and {DEFAULTS_FILE} gives none")
    merged = _with_defaults(data, base or {})
    try:
        return model.model_validate(merged)
    except ValidationError as exc:
        for err in exc.errors():
            loc = [str(p) for p in err["loc"]]
            line = _line_of(root, loc)
            field = ".".join(loc) or "file"
            problems.append(f"{path}:{line}: {field}: {err['msg']}")
        return None


def _with_defaults(data: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    merged = dict(data)
    for key in _INHERITED:
        inherited = base.get(key)
        if isinstance(inherited, dict):
            own = data.get(key)
            merged[key] = {**inherited, **own} if isinstance(own, dict) else own or inherited
    return merged


def _line_of(node: yaml.Node | None, loc: list[str]) -> int:
    """The 1-based line of the deepest YAML node along `loc` that exists in the file."""
    line = node.start_mark.line + 1 if node is not None else 1
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            found = next((v for k, v in node.value if k.value == key), None)
            if found is None:
                break
            key_node = next(k for k, v in node.value if v is found)
            node, line = found, key_node.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode) and key.isdigit() and int(key) < len(node.value):
            node = node.value[int(key)]
            line = node.start_mark.line + 1
        else:
            break
    return line
