"""Sticky bucketing: stable, monotonic in percent, about uniform."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from shadowswitch.request import ChatView
from shadowswitch.rollouts.routing import RolloutView, bucket, choose_route, in_local_group, sticky_key

keys = st.text(min_size=1, max_size=40)
tasks = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=20)
percents = st.floats(min_value=0, max_value=100)


@given(tasks, keys)
def test_bucket_is_stable_and_in_range(task: str, key: str) -> None:
    assert bucket(task, key) == bucket(task, key)
    assert 0 <= bucket(task, key) < 100


@given(tasks, keys, percents, percents)
def test_raising_the_percent_never_moves_a_key_out(task: str, key: str, a: float, b: float) -> None:
    low, high = sorted((a, b))
    if in_local_group(task, key, low):
        assert in_local_group(task, key, high)


@given(tasks, st.integers(min_value=1, max_value=99))
def test_split_is_about_uniform(task: str, percent: int) -> None:
    n = 4000
    inside = sum(in_local_group(task, f"session-{i}", percent) for i in range(n))
    assert abs(inside / n * 100 - percent) < 3.5  # ~5 standard deviations at worst


def test_task_types_bucket_independently() -> None:
    pairs = [(in_local_group("a", f"k{i}", 50), in_local_group("b", f"k{i}", 50)) for i in range(2000)]
    same = sum(x == y for x, y in pairs) / len(pairs)
    assert 0.45 < same < 0.55


def test_routes() -> None:
    canary = RolloutView(mode="canary", percent=100)
    assert choose_route("t", "k", canary) == "local"
    assert choose_route("t", "k", RolloutView(mode="canary", percent=0)) == "generative"
    assert choose_route("t", "k", RolloutView(mode="off", percent=100)) == "generative"
    assert choose_route("t", "k", RolloutView(mode="shadow", percent=0)) == "shadow"
    assert choose_route("t", "k", RolloutView("canary", 100, breaker_state="open")) == "generative"
    half = RolloutView("canary", 100, breaker_state="half_open", reprobe_percent=5)
    assert half.local_percent == 5


def test_sticky_key_preference() -> None:
    body = {"user": "u1", "messages": [{"role": "user", "content": "hi"}]}
    request = ChatView.parse(body)
    assert sticky_key(request, "s1", "session") == "s1"
    assert sticky_key(request, None, "session") == "u1"
    assert sticky_key(request, "s1", "user") == "u1"
    conversation = sticky_key(request, "s1", "conversation")
    later = ChatView.parse({**body, "messages": [*body["messages"], {"role": "assistant", "content": "yo"}]})
    assert sticky_key(later, "s2", "conversation") == conversation
