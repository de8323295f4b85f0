"""Chinese: numerals (`numerals`), dates and times (`dates`), phrases cut without spaces, place
names and glossary words (`spans`), and the label words around a value (`labels`).

The word tables are in `tables/`; the modules that read them are imported when the first text
with Han characters in it is read.
"""

from __future__ import annotations

from datetime import date

from shadowswitch.engines.local.languages.base import Glossed, PlaceOf, Span
from shadowswitch.engines.local.languages.zh.script import CJK_RE, has_chinese


class Chinese:
    code = "zh"

    def writes(self, text: str) -> bool:
        return has_chinese(text)

    def share(self, text: str) -> float:
        """The share of `text`'s words written in Han characters (each a word, language.units);
        0.0 with kana (Japanese writes Han characters too)."""
        from shadowswitch.engines.local.language import units

        found = units(text)
        scripts = [script for _, script in found]
        if not found or "HIRAGANA" in scripts or "KATAKANA" in scripts:
            return 0.0
        return scripts.count("CJK") / len(found)

    def spans(self, text: str, region_of: PlaceOf, today: date | None = None) -> list[Span]:
        from shadowswitch.engines.local.languages.zh.spans import chinese_spans

        return chinese_spans(text, region_of, today)

    def tokens(self, text: str) -> list[tuple[int, str]]:
        from shadowswitch.engines.local.languages.zh.labels import chinese_tokens

        return chinese_tokens(text)

    def labels_before(self, text: str, at: int) -> frozenset[str]:
        from shadowswitch.engines.local.languages.zh.labels import labels_before

        return labels_before(text, at)

    def role_before(self, text: str, at: int, currency: bool) -> str | None:
        from shadowswitch.engines.local.languages.zh.labels import role_before

        return role_before(text, at, currency)

    def offered(self, description: str, span: Span) -> bool:
        from shadowswitch.engines.local.languages.zh.spans import offered

        return offered(description, span)

    def glossed(self, text: str) -> list[Glossed]:
        from shadowswitch.engines.local.languages.zh.spans import glossed

        return glossed(text)

    def negated(self, text: str, start: int) -> bool:
        from shadowswitch.engines.local.languages.zh.spans import negated

        return negated(text, start)


READER = Chinese()

__all__ = ["CJK_RE", "READER", "Chinese"]
