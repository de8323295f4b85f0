"""JSON-schema helpers: normalise loose tool schemas, validate, and build a minimal valid value."""

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


def minimal_instance(schema: dict[str, Any]) -> Any:
    """A simple value valid against `schema` for the common keywords; the last-resort fill."""
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if "default" in schema and is_valid(schema["default"], schema):
        return schema["default"]
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return minimal_instance(schema[key][0])
    return _minimal_of_type(main_type(schema), schema)


def _minimal_of_type(kind: str | None, schema: dict[str, Any]) -> Any:
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: minimal_instance(props.get(k, {})) for k in schema.get("required") or []}
    if kind == "array":
        found = schema.get("items")
        items: dict[str, Any] = found if isinstance(found, dict) else {}
        return [minimal_instance(items) for _ in range(int(schema.get("minItems") or 0))]
    if kind in ("number", "integer"):
        return _minimal_number(schema, kind)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    if kind == "string":
        return "x" * int(schema.get("minLength") or 0)
    return None if kind is None else ""


def _minimal_number(schema: dict[str, Any], kind: str) -> int | float:
    import math

    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    value: float = 0
    if isinstance(low, int | float):
        value = math.floor(low) + 1 if "exclusiveMinimum" in schema else math.ceil(low)
    elif isinstance(high, int | float) and high < 0:
        value = math.ceil(high) - 1 if "exclusiveMaximum" in schema else math.floor(high)
    step = schema.get("multipleOf")
    if isinstance(step, int | float) and step > 0:
        value = math.ceil(value / step) * step
    return int(value) if kind == "integer" or float(value).is_integer() else value


def find_enum_property(schema: dict[str, Any]) -> tuple[str, list[Any]] | None:
    """The first property (depth-first, in order) whose schema lists an enum."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return None
    for name, sub in props.items():
        if isinstance(sub, dict) and isinstance(sub.get("enum"), list) and sub["enum"]:
            return name, list(sub["enum"])
    return None
