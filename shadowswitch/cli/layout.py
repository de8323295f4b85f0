"""The package's layout as docs/README.md shows it: every package and root module with the first
sentence of its docstring, read from the source (nothing is imported).

The tree is the architecture's map, so the page is generated from it and cannot drift from it:
`make docs` rewrites the block, and a test fails while it is stale.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import shadowswitch

BEGIN = "<!-- layout: generated from each package's docstring by `make docs`; do not edit -->"
END = "<!-- end of the generated layout -->"
WIDTH = 100
COLUMN = 30  # where the summaries start


def summary(source: Path) -> str:
    """The first sentence of a module's docstring (its first paragraph when that has no full stop)."""
    doc = ast.get_docstring(ast.parse(source.read_text(encoding="utf-8"))) or ""
    paragraph = " ".join(doc.split("\n\n")[0].split())
    head, stop, _ = paragraph.partition(". ")
    return head + "." if stop else paragraph


def entries(package: Path, depth: int = 0) -> list[tuple[int, str, str]]:
    """(depth, name, summary) for the package's subpackages, depth first, then its root modules."""
    found: list[tuple[int, str, str]] = []
    for child in sorted(p for p in package.iterdir() if (p / "__init__.py").exists()):
        found.append((depth, child.name + "/", summary(child / "__init__.py")))
        found += entries(child, depth + 1)
    if depth == 0:
        modules = sorted(p for p in package.glob("*.py") if p.name != "__init__.py")
        found += [(depth, p.name, summary(p)) for p in modules]
    return found


def layout_md(root: Path | None = None) -> str:
    """The tree as a text block: names indented by depth, summaries wrapped in a column of their own."""
    package = root or Path(shadowswitch.__file__).parent
    lines: list[str] = []
    for depth, name, text in [(-1, "shadowswitch/", summary(package / "__init__.py")), *entries(package)]:
        label = "  " * (depth + 1) + name
        wrapped = textwrap.wrap(text or "(no docstring)", WIDTH - COLUMN)
        if len(label) >= COLUMN:
            lines.append(label)
            label = ""
        lines += [f"{label if i == 0 else '':<{COLUMN}}{part}" for i, part in enumerate(wrapped)]
    return "\n".join([BEGIN, "```text", *lines, "```", END])


def splice(page: str, block: str) -> str:
    """`page` with the text between the markers replaced by `block` (markers included)."""
    start, end = page.find(BEGIN), page.find(END)
    if start < 0 or end < start:
        raise ValueError(f"the page has no generated block: add the lines {BEGIN!r} and {END!r}")
    return page[:start] + block + page[end + len(END) :]
