"""JSON-schema helpers: normalise loose tool schemas, name a schema's type, validate."""

from __future__ import annotations

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
    if isinstance(out.get("properties"), dict) and "required" in out:
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
