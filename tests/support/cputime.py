"""`pytest --cpu-durations=N`: the N tests, and the N test files, that took the most CPU time.

On a shared machine, pytest's `--durations` (wall time) measures the neighbours as much as the
test; CPU time (user + sys of this process, its threads — the in-process servers included — and
the children it waited for) measures the test. A test's module- and session-scoped fixtures count
for the test that sets them up or tears them down.
"""

from __future__ import annotations

import resource
from collections import Counter
from collections.abc import Generator

import pytest

_spent: Counter[str] = Counter()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cpu-durations",
        type=int,
        default=None,
        metavar="N",
        help="show the N tests and test files that took the most CPU time (user + sys)",
    )


def _cpu_s() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, object, object]:
    started = _cpu_s()
    try:
        return (yield)
    finally:
        _spent[item.nodeid] += _cpu_s() - started


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    count = config.getoption("cpu_durations")
    if count is None or not _spent:
        return
    files: Counter[str] = Counter()
    for nodeid, seconds in _spent.items():
        files[nodeid.split("::")[0]] += seconds
    write = terminalreporter.write_line
    terminalreporter.section(f"CPU time: {sum(_spent.values()):.1f} s in tests, {_cpu_s():.1f} s in all")
    for title, counts in (("tests", _spent), ("test files", files)):
        write(f"the {count or len(counts)} {title} that took the most:")
        for name, seconds in counts.most_common(count or None):
            write(f"{seconds:8.2f}s  {name}")
