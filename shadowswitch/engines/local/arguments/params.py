"""What the argument filler knows about one parameter: type, keywords, required or not."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from shadowswitch.engines.local.choice.candidates import humanise
from shadowswitch.engines.local.languages.en.words import STOPWORDS, stem
from shadowswitch.engines.local.schema import main_type

__all__ = ["Param", "described_as", "keywords", "params_of", "role_of", "stem"]

WORD = re.compile(r"[a-z][a-z0-9]+")


@dataclass(frozen=True)
class Param:
    name: str
    schema: dict[str, Any]
    required: bool
    kind: str  # string | integer | number | boolean | array | object | enum | any
    name_words: frozenset[str]
    desc_words: frozenset[str]
    role: str | None = None  # "source" or "target": where a "from X" / "to X" value belongs

    @property
    def description(self) -> str:
        return str(self.schema.get("description") or "")

    @property
    def text(self) -> str:
        """What the encoder compares values with."""
        return f"{humanise(self.name)}: {self.description}"[:300]


def keywords(text: str, limit: int = 12) -> frozenset[str]:
    words = [w for w in WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 1]
    return frozenset(stem(w) for w in words[:limit])


SOURCE_WORDS = frozenset(
    ("from", "origin", "source", "start", "starting", "departure", "src", "pickup", "sender")
)
TARGET_WORDS = frozenset(
    ("to", "destination", "target", "end", "arrival", "dest", "into", "dropoff", "recipient")
)


def role_of(name: str, description: str) -> str | None:
    """Source or target, from the parameter's name, else its description (where "from"/"to"
    are too common to mean anything: "the city to search in")."""
    in_description = set(WORD.findall(description.lower())) - {"from", "to", "into"}
    for words in (set(humanise(name).split()), in_description):
        source, target = bool(words & SOURCE_WORDS), bool(words & TARGET_WORDS)
        if source != target:
            return "source" if source else "target"
    return None


def params_of(parameters: dict[str, Any]) -> list[Param]:
    """Every property of a tool's parameters, required ones first, schema order kept."""
    props = parameters.get("properties") or {}
    required = set(parameters.get("required") or [])
    out = [_param(n, s if isinstance(s, dict) else {}, n in required) for n, s in props.items()]
    return sorted(out, key=lambda p: not p.required)


def _param(name: str, schema: dict[str, Any], required: bool) -> Param:
    kind = "enum" if isinstance(schema.get("enum"), list) and schema["enum"] else main_type(schema)
    desc = str(schema.get("description") or "")
    return Param(
        name, schema, required, kind or "any", keywords(humanise(name)), keywords(desc), role_of(name, desc)
    )


@functools.lru_cache(maxsize=1024)  # asked for every parameter of every request
def described_as(description: str) -> frozenset[str]:
    """The words of what the description says the parameter is, before "of", "like" or a comma:
    "Username of the technician" is a username; "Part of a name, username or email" is not."""
    head = re.split(r"(?i)\b(?:of|like|e\.g\.|such as)\b|[,(;:]", description, maxsplit=1)[0]
    return frozenset(stem(w) for w in re.findall(r"[a-z]+", head.lower()))
