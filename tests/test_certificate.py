"""The certificate's arithmetic: the e-process, the fixed sequence, the pairs needed, the monitor."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shadowswitch.learning.certificate import GRID, Monitor, certify, log_wealth, pairs_needed

pytestmark = pytest.mark.unit
BAR = math.log(20)


def test_pairs_needed_at_a_95_percent_target_matches_the_known_figures() -> None:
    """About 69 clean pairs in a row, 120 at 1% misses, 270 at 2%, 790 at 3%."""
    for rate, about in ((1.0, 69), (0.99, 120), (0.98, 270), (0.97, 790)):
        needed = pairs_needed(rate, 0.95)
        assert needed is not None and abs(needed - about) <= 0.1 * about, (rate, needed)
    assert pairs_needed(0.95, 0.95) is None
    assert pairs_needed(0.90, 0.95) is None


def test_a_clean_stream_certifies_after_the_pairs_needed() -> None:
    for target in (0.95, 0.97):
        path = log_wealth([1.0] * 300, target)
        first = int(np.argmax(path >= BAR)) + 1
        needed = pairs_needed(1.0, target)
        assert needed is not None and abs(first - needed) <= 2, (target, first, needed)


def test_one_miss_among_the_first_pairs_costs_the_region_little() -> None:
    """The bettor starts from a prior, not from one agreeing pseudo-pair: a miss among the first
    pairs no longer stakes 98% of the wealth, so 125 pairs with one miss certify wherever it falls
    (with the bold start, 200 were needed), and two misses in 170."""
    for n, misses in ((125, 1), (170, 2)):
        for at in range(0, n - misses + 1, 7):
            xs = [1.0] * n
            for k in range(misses):
                xs[(at + 40 * k) % n] = 0.0
            assert log_wealth(xs, 0.95)[-1] >= BAR, (n, at)
    assert log_wealth([1.0] * 110 + [0.0], 0.95)[-1] < BAR  # 111 with one miss: not yet


def test_a_miss_costs_the_bettor_but_never_everything() -> None:
    path = log_wealth([1.0] * 50 + [0.0], 0.95)
    assert path[-1] < path[-2]
    assert np.isfinite(path[-1])


def test_the_fixed_sequence_certifies_the_loosest_clean_threshold() -> None:
    """High confidence always agrees, low confidence rarely: the region stops where misses begin."""
    rng = np.random.default_rng(1)
    conf = rng.uniform(0, 1, 2000).round(2)
    agree = np.where(conf >= 0.6, 1.0, (rng.random(2000) < 0.3).astype(float))
    cert = certify(conf.tolist(), agree.tolist(), 0.95)
    assert cert.threshold is not None and 0.55 <= cert.threshold <= 0.7
    assert cert.certified is not None and (cert.certified.agreement or 0) >= 0.95
    low = cert.lower_bound()
    assert low is not None and 0.9 < low < 1.0
    assert cert.next_step is not None and cert.next_step.threshold < cert.threshold


def test_the_sequence_ends_at_the_first_threshold_it_cannot_reject() -> None:
    """A looser threshold that would pass on its own is never reached past a failing one."""
    conf = [0.95] * 100 + [0.9] * 100 + [0.5] * 2000
    agree = [1.0] * 100 + [0.0] * 100 + [1.0] * 2000
    order = np.random.default_rng(2).permutation(len(conf))
    cert = certify([conf[i] for i in order], [agree[i] for i in order], 0.95)
    assert cert.threshold == 0.95
    assert [s.threshold for s in cert.steps][-1] == 0.9


def test_too_few_pairs_certify_nothing_and_say_how_many_more() -> None:
    cert = certify([0.9] * 30, [1.0] * 30, 0.95)
    assert cert.threshold is None
    assert cert.to_json()["served"] == 0 and cert.lower_bound() is None
    more = cert.more_pairs()
    assert more is not None and 34 <= more <= 44  # about 69 clean ones, 30 in


def test_more_pairs_grows_with_the_miss_rate() -> None:
    """40 pairs at 0.9 with no miss, one, two: more needed with each, none at the target's rate."""
    figures = []
    for misses in (0, 1, 2):
        agree = [1.0] * 40
        for i in range(misses):
            agree[10 + 10 * i] = 0.0
        figures.append(certify([0.9] * 40, agree, 0.95).more_pairs())
    assert figures[0] is not None and figures[1] is not None
    assert figures[0] < 30 < 300 < figures[1]
    assert figures[2] is None  # 38 of 40 is the target itself: not at this miss rate


def test_ineligible_pairs_are_never_served() -> None:
    cert = certify([0.99] * 200, [1.0] * 200, 0.95, eligible=[False] * 200)
    assert cert.threshold is None


def test_false_certification_stays_below_alpha_over_simulated_streams() -> None:
    """1,000 streams whose true agreement is just below the target at every threshold: the share
    certified anywhere is at most α (5%), with room for the simulation's own noise."""
    rng = np.random.default_rng(44)
    target, truth, n = 0.95, 0.94, 600
    certified = 0
    for _ in range(1000):
        conf = rng.choice(GRID[:12], n)
        agree = (rng.random(n) < truth).astype(float)
        certified += certify(conf.tolist(), agree.tolist(), target).threshold is not None
    assert certified / 1000 <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 1000)


def test_a_true_agreement_above_the_target_does_certify() -> None:
    rng = np.random.default_rng(5)
    agree = (rng.random(1500) < 0.995).astype(float)
    assert certify([0.8] * 1500, agree.tolist(), 0.95).threshold == 0.8  # not below what was seen


def test_the_monitor_withdraws_when_agreement_falls() -> None:
    monitor = Monitor(0.97)
    assert not any(monitor.add(1.0) for _ in range(200))
    results = [monitor.add(0.0) for _ in range(10)]
    assert results[-1] and not results[0]


def test_the_monitor_rarely_withdraws_a_state_at_the_target() -> None:
    rng = np.random.default_rng(6)
    withdrawn = 0
    for _ in range(300):
        monitor = Monitor(0.95)
        withdrawn += any(monitor.add(float(x)) for x in rng.random(500) < 0.95)
    assert withdrawn / 300 <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 300)
