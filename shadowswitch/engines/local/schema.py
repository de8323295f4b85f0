"""JSON-schema helpers: normalise loose tool schemas, name a schema's type, validate."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

# Loose type names seen in real tool definitions (BFCL, Python-flavoured specs) → JSON schema.
TYPE_ALIASES = {
    "dict": "object",
    "float": "number",
    "double": "number",
    "int": "integer",
    "long": "integer",
    "tuple": "array",
    "list": "array",
    "str": "string",
    "bool": "boolean",
    "any": None,
    "none": "null",
}
JSON_TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}


def normalise(schema: Any) -> dict[str, Any]:
    """A copy of `schema` that jsonschema understands; unknown type names become 'any'."""
    if not isinstance(schema, dict):
        return {}
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            mapped = _map_type(value)
            if mapped is not None:
                out["type"] = mapped
        elif key == "properties" and isinstance(value, dict):
            out[key] = {k: normalise(v) for k, v in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = normalise(value)
        elif key in ("anyOf", "oneOf", "allOf") and isinstance(value, list):
            out[key] = [normalise(v) for v in value]
        elif key == "required" and isinstance(value, list):
            out[key] = [v for v in value if isinstance(v, str)]
        elif key not in ("optional",):
            out[key] = value
    if isinstance(out.get("properties"), dict) and isinstance(out.get("required"), list):
        out["required"] = [r for r in out["required"] if r in out["properties"]]
    return out


def _map_type(value: Any) -> Any:
    if isinstance(value, list):
        mapped = [_map_type(v) for v in value]
        return None if None in mapped else mapped
    if not isinstance(value, str):
        return None
    name = value.lower()
    return name if name in JSON_TYPES else TYPE_ALIASES.get(name)


def main_type(schema: dict[str, Any]) -> str | None:
    """The one type a value should have (the first non-null when a list is given)."""
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        return kinds[0] if kinds else "null"
    if isinstance(kind, str):
        return kind
    if "enum" in schema:
        return "enum"
    if "properties" in schema:
        return "object"
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options and isinstance(options[0], dict):
            return main_type(options[0])
    return None


def is_valid(instance: Any, schema: dict[str, Any]) -> bool:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        return bool(Draft202012Validator(schema).is_valid(instance))
    except SchemaError:
        return False


def find_enum_property(schema: dict[str, Any]) -> tuple[str, list[Any]] | None:
    """The first property (depth-first, in order) whose schema lists an enum."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return None
    for name, sub in props.items():
        if isinstance(sub, dict) and isinstance(sub.get("enum"), list) and sub["enum"]:
            return name, list(sub["enum"])
    return None


def unsupported(schema: Any) -> str | None:
    """Why the engine cannot read a tool's `parameters`, or None: after `normalise` they must be a
    valid JSON schema (2020-12) whose `$ref`s all point inside it. Cached: agents resend tools."""
    return _unsupported(json.dumps(schema, sort_keys=True, default=str))


@lru_cache(maxsize=1024)
def _unsupported(text: str) -> str | None:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    schema = normalise(json.loads(text))
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.path) or "the root"
        return f"not a valid JSON schema at {where}: {exc.message[:200]}"
    dangling = next((ref for ref in _refs(schema) if not _resolves(schema, ref)), None)
    return f"$ref {dangling!r} points nowhere inside the schema" if dangling else None


def _refs(schema: Any) -> list[str]:
    refs, stack = [], [schema]
    while stack:  # iterative: a deep schema must not overflow the check meant to catch it
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                refs.append(node["$ref"])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return refs


def _resolves(schema: Any, ref: str) -> bool:
    """A local JSON pointer (`#`, `#/$defs/x`) that names a schema inside `schema`."""
    if not ref.startswith("#"):
        return False  # a remote document: never fetched
    node = schema
    for token in [t.replace("~1", "/").replace("~0", "~") for t in ref[1:].split("/")[1:]]:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return False
    return isinstance(node, dict | bool)
