"""Check a local answer's provenance: every value has a source, and that source holds."""

from __future__ import annotations

from typing import Any

from shadowswitch.engines.local.arguments.grounding import grounded
from shadowswitch.engines.local.conversation import message_text

SOURCES = {"text", "default", "decoded", "enum_choice"}
Conversation = str | list[dict[str, Any]]  # one text, or the request's messages


def assert_grounded(
    arguments: dict[str, Any], sources: dict[str, Any], schema: dict[str, Any], conversation: Conversation
) -> None:
    """Every argument has a known source; a span is really that text of the conversation (of
    the message it names); a default is the schema's; a decoded value's leaves are all in the
    text; an enum choice is an option. Nested objects: their parts too."""
    props = schema.get("properties") or {}
    assert set(sources) == set(arguments), (arguments, sources)
    for name, value in arguments.items():
        check_source(value, sources[name], props.get(name) or {}, conversation)


def check_source(
    value: Any, source: dict[str, Any], schema: dict[str, Any], conversation: Conversation
) -> None:
    kind = source["source"]
    assert kind in SOURCES, source
    if kind in ("text", "enum_choice"):
        text = span_owner(source, conversation)
        assert text[source["start"] : source["end"]] == source["text"], (source, text)
    if "properties" in source:
        assert_grounded(value, source["properties"], schema, conversation)
    elif kind == "default":
        assert value == schema["default"]
    elif kind == "decoded":
        assert grounded(value, whole(conversation)), value
    elif kind == "enum_choice" and "enum" in schema:
        assert value in schema["enum"]


def span_owner(source: dict[str, Any], conversation: Conversation) -> str:
    """The text a span points into: the one text, or the message it names."""
    if isinstance(conversation, str):
        return conversation
    return message_text(conversation[source["message"]])


def whole(conversation: Conversation) -> str:
    if isinstance(conversation, str):
        return conversation
    return "\n".join(message_text(m) for m in conversation)
