"""The repository stands alone: no file names a machine's paths or links outside the repository."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Written so that this file does not match itself: `[o]` and `[.]` spell the same characters.
MACHINE_PATHS = re.compile(rb"/w[o]rk/|/h[o]me/[\w.-]+/|/r[o]ot/|[.][.]/shared\b")

# Files allowed to carry a match, each with the reason.
ALLOWED = {
    # It asserts that an error message never leaks a source path: the
    # string is what the test looks for, not a path of this machine.
    "tests/test_bad_input.py",
}


def tracked_files() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [name for name in listed.decode().split("\0") if name]


@pytest.mark.integration  # starts a process
def test_no_tracked_file_names_a_machine_path_or_links_outside() -> None:
    offenders = {}
    for name in tracked_files():
        path = ROOT / name
        if name in ALLOWED or not path.is_file():
            continue
        found = MACHINE_PATHS.search(path.read_bytes())
        if found:
            offenders[name] = found.group().decode(errors="replace")
    assert not offenders, f"machine paths or links outside the repository: {offenders}"


def test_the_pattern_finds_what_it_is_for() -> None:
    for text in (
        "see /wo" + "rk/main",
        "/ho" + "me/alice/x",
        "/ro" + "ot/.cache",
        "[SPEC](../" + "shared/SPEC.md)",
    ):
        assert MACHINE_PATHS.search(text.encode()), text
    for text in ("docs/overhead.md", "~/.cache/shadowswitch", "$XDG_STATE_HOME/shadowswitch/spool/"):
        assert not MACHINE_PATHS.search(text.encode()), text


LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.integration  # starts a process
def test_every_relative_link_in_the_docs_resolves() -> None:
    broken = []
    for name in tracked_files():
        if not name.endswith(".md"):
            continue
        page = ROOT / name
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:|#", target):
                continue  # a web address, or a heading on the same page
            if not (page.parent / target.split("#")[0]).exists():
                broken.append(f"{name}: {target}")
    assert not broken, "links to nothing:\n" + "\n".join(broken)


def test_the_readme_is_short_and_starts_with_the_three_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200, "the README is for a newcomer: the rest belongs in docs/"
    for command in ("make install", "make demo", "make test"):
        assert command in readme.split("\n## ")[0], f"`{command}` is not in the README's opening"
