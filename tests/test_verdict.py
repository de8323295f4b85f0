"""The comparison's statistics on hand-computed cases, and the verdict's honesty under watching."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.proportion import confint_proportions_2indep

from shadowswitch.analysis.sequential import confidence_sequence, pairs_needed
from shadowswitch.analysis.stats import difference, percentiles, rate
from shadowswitch.analysis.verdict import Counts, Evidence, success_comparison, verdict_for


def test_a_rate_carries_its_wilson_interval() -> None:
    figure = rate(9, 10).json()
    assert figure["rate"] == 0.9 and figure["n"] == 10
    assert figure["ci95"] == [0.5958, 0.9821]  # Wilson, 95%, by hand: (p̂ + z²/2n ± z√(…)) / (1 + z²/n)
    assert rate(0, 0).json()["ci95"] is None


def test_a_difference_carries_newcombes_interval() -> None:
    found = difference(rate(90, 100), rate(85, 100))
    assert found == {"diff": 0.05, "ci95": [-0.0437, 0.1442]}
    assert difference(rate(1, 2), rate(0, 0)) is None


def test_percentiles_interpolate() -> None:
    assert percentiles([10.0, 20.0, 30.0, 40.0]) == {"p50": 25.0, "p95": 38.5, "p99": 39.7}
    assert percentiles([]) == {"p50": None, "p95": None, "p99": None}


def test_a_confidence_sequence_is_wider_than_a_fixed_interval_and_narrows() -> None:
    fixed = rate(400, 412)
    low, high = confidence_sequence(400, 412)
    assert low < (fixed.low or 0) and high > (fixed.high or 1)  # the price of looking any time
    assert low < 400 / 412 < high
    later = confidence_sequence(4000, 4120)
    assert later[1] - later[0] < (high - low) / 2
    assert confidence_sequence(0, 0) == (0.0, 1.0)
    assert confidence_sequence(0, 10)[0] == 0.0 and confidence_sequence(10, 10)[1] == 1.0


def test_pairs_needed_grows_as_the_margin_shrinks() -> None:
    assert 300 < pairs_needed(0.97, 0.03) < 700
    assert pairs_needed(0.97, 0.01) > 4 * pairs_needed(0.97, 0.03)


def test_no_data_is_never_a_pass() -> None:
    verdict = verdict_for(Evidence(Counts(), Counts(), Counts()))
    assert verdict.kind == "not_enough_data" and "no pairs" in verdict.text


def test_verdict_thresholds() -> None:
    safe = verdict_for(Evidence(Counts(1990, 2000), Counts(950, 1000), Counts(940, 1000), "canary", 5))
    assert safe.kind == "safe" and "safe to raise to 25%" in safe.text, safe.text
    assert "99.5% of 2000 pairs" in safe.text
    waiting = verdict_for(Evidence(Counts(37, 38), Counts(), Counts(), "shadow"))
    assert waiting.kind == "not_enough_data" and "need ~" in waiting.text, waiting.text
    disagrees = verdict_for(Evidence(Counts(800, 1000), Counts(), Counts(), "canary", 10))
    assert disagrees.kind == "worse" and "hold at 10%" in disagrees.text, disagrees.text
    fails = verdict_for(Evidence(Counts(1990, 2000), Counts(700, 1000), Counts(950, 1000), "canary", 25))
    assert fails.kind == "worse" and "succeeds less often" in fails.text


def _false_alarms(runs: int, pairs: int, rate_: float, seed: int) -> tuple[int, int]:
    """Runs in which two equal paths were once declared different, checking after every pair:
    by the verdict's sequences, and by a fixed 95% interval of the difference (Newcombe)."""
    rng = np.random.default_rng(seed)
    sequential = naive = 0
    steps = np.arange(1, pairs + 1)
    for _ in range(runs):
        local = np.cumsum(rng.random(pairs) < rate_)
        generative = np.cumsum(rng.random(pairs) < rate_)
        sequential += any(
            success_comparison(Counts(int(a), int(n)), Counts(int(b), int(n))) is not None
            for a, b, n in zip(local, generative, steps, strict=True)
        )
        low, high = confint_proportions_2indep(local, steps, generative, steps, method="newcomb")
        naive += bool(np.any((low > 0) | (high < 0)))
    return sequential, naive


@pytest.mark.slow
def test_the_verdict_stays_honest_under_continuous_monitoring() -> None:
    runs = 100  # 0 sequential false alarms and 37 naive ones here; 200 runs of 2000 pairs: 0 and 94
    sequential, naive = _false_alarms(runs, pairs=1000, rate_=0.9, seed=7)
    assert sequential / runs <= 0.05, sequential
    assert naive / runs > 0.05, naive  # a fixed interval, looked at after every pair, cries wolf


def test_money_saved_is_the_mean_upstream_price_times_the_local_answers() -> None:
    from shadowswitch.analysis.report import saving
    from shadowswitch.store.tables import Decision

    def row(path: str, model: str | None = None, prompt: int = 0, completion: int = 0) -> Decision:
        return Decision(
            id=f"{path}{prompt}",
            task_type="t",
            path=path,
            route="local",
            mode="canary",
            upstream_model=model,
            prompt_tokens=prompt,
            completion_tokens=completion,
        )

    # gpt-4o-mini: $0.15 per million input tokens, $0.60 per million output tokens
    paid = [
        row("generative", "openai/gpt-4o-mini", 1000, 100),
        row("generative", "openai/gpt-4o-mini", 3000, 300),
    ]
    local = [row("local") for _ in range(10)]
    found = saving(paid + local, days=0.5)
    mean = (1000 * 0.15e-6 + 100 * 0.6e-6 + 3000 * 0.15e-6 + 300 * 0.6e-6) / 2  # $0.00042 a call
    assert found["usd"] == pytest.approx(10 * mean) and found["usd_per_day"] == pytest.approx(
        20 * mean, abs=1e-4
    )
    unknown = saving([row("generative", "openai/scripted", 10, 10), *local], days=1)
    assert unknown["usd"] is None and unknown["note"].startswith("unknown")
