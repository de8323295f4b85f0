"""The repository stands alone: no file names a machine's paths or links outside the repository."""

from __future__ import annotations

import json
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


# Notes on how the work was organised rather than on the product: numbered items and their
# targets, who re-runs what. The `[x]` classes keep this file from matching itself.
WORK_NOTES = re.compile(
    r"\b(?:[i]ssue|[s]ession|work [i]tem)s? ?#?\d+\b|\b(?:the|this) [i]ssue\b|\bthis (?:[s]ession|[b]ranch)\b"
    r"|\bthe (?:[l]ead|[b]rief)\b|\b[h]elper `|\bother [s]essions\b|\bof [m]ine\b|\bwork [i]tems?\b"
    r"|\bseed [a]rticles?\b",
    re.IGNORECASE,
)
WRITTEN = ("docs", "tests", "shadowswitch", "bench")
SUFFIXES = {".md", ".py", ".json", ".yaml", ".txt", ".html", ".toml"}
VENDORED = ("shadowswitch/dashboard/static/", "tests/artifacts/")


def written_files() -> list[Path]:
    """The repository's own prose and code under WRITTEN, and the README (vendored files aside)."""
    found = [ROOT / "README.md"]
    for top in WRITTEN:
        found += [p for p in (ROOT / top).rglob("*") if p.suffix in SUFFIXES and p.is_file()]
    return [
        p
        for p in found
        if "__pycache__" not in p.parts and not p.relative_to(ROOT).as_posix().startswith(VENDORED)
    ]


def test_docs_tests_and_research_speak_of_the_product_only() -> None:
    offenders = []
    for path in written_files():
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if found := WORK_NOTES.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {found.group()!r}")
    assert not offenders, "say what the product does, not how the work went:\n" + "\n".join(offenders)


def test_the_work_notes_pattern_finds_what_it_is_for() -> None:
    for text in (
        "after the readers of is" + "sue 34",
        "(Se" + "ssion 18)",
        "the is" + "sue's target",
        "main against this bra" + "nch",
        "the le" + "ad re-runs it",
        "(hel" + "per `values`' part)",
        "a test run of mi" + "ne",
    ):
        assert WORK_NOTES.search(text), text
    for text in (
        "X-Shadowswitch-Session: s1",
        "sticky_key: session",
        "this round skipped it",
        "JSON-schema helpers",
        "a session-level advisory lock",
    ):
        assert not WORK_NOTES.search(text), text


TEMP_PATHS = re.compile(rb"(?<![\w.])/(?:tmp|var/tmp|var/folders|private/var)/")


def test_bench_results_hold_the_latest_result_of_each_benchmark() -> None:
    """One file per benchmark, complete, with nothing of the machine it ran on but its description."""
    results = sorted((ROOT / "bench" / "results").glob("*"))
    assert results, "bench/results/ is empty"
    assert not [p.name for p in results if "partial" in p.name or p.suffix != ".json"]
    for path in results:
        raw = path.read_bytes()
        json.loads(raw)  # complete: a run that was cut short leaves no half-written file
        found = MACHINE_PATHS.search(raw) or TEMP_PATHS.search(raw)
        assert found is None, f"{path.name} keeps a path of the machine it ran on: {found.group()!r}"


def test_the_temp_path_pattern_finds_what_it_is_for() -> None:
    assert TEMP_PATHS.search(b'"out": "/tmp/load-w2.json"') and TEMP_PATHS.search(b"/var/folders/x/T/a")
    assert not TEMP_PATHS.search(b'"db": "sqlite (temp dir)"') and not TEMP_PATHS.search(
        b"bench/results/x.json"
    )
