"""The results file names the commit it measured; its own rewrites do not make the tree dirty."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bench.bfcl.results import git_commit


@pytest.mark.integration  # runs git
def test_a_run_rewriting_its_results_is_not_dirty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True)

    (tmp_path / "bench" / "results").mkdir(parents=True)
    (tmp_path / "bench" / "results" / "bfcl.json").write_text("{}")
    (tmp_path / "code.py").write_text("x = 1\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "start")
    monkeypatch.chdir(tmp_path / "bench")  # from a subdirectory too
    (tmp_path / "bench" / "results" / "bfcl.json").write_text('{"summary": {}}')
    clean = git_commit()
    assert clean is not None and not clean.endswith("+dirty")
    (tmp_path / "code.py").write_text("x = 2\n")
    assert git_commit() == f"{clean}+dirty"
