"""`bench.certificate_bettor`: both bettors simulated, the product's left as it was."""

from __future__ import annotations

import numpy as np
import pytest

from bench import certificate_bettor
from shadowswitch.learning import certificate

pytestmark = pytest.mark.unit


def test_the_prior_certifies_a_region_with_one_early_miss_sooner_and_stays_valid() -> None:
    kept = certificate.PRIOR, certificate.prior_rate
    found = certificate_bettor.simulate(streams=20)
    assert (certificate.PRIOR, certificate.prior_rate) == kept  # restored after each bettor
    before, now = found.values()
    assert now["1_miss_certifies_wherever_at"] < before["1_miss_certifies_wherever_at"]
    assert before["clean_run"] <= now["clean_run"] <= before["clean_run"] + 15
    assert now["false_certification"] <= 0.1


def test_the_order_free_mixture_is_its_integral_and_stays_valid_at_any_time() -> None:
    from scipy import integrate

    m, a = 0.95, 40.0
    for agreed, n in ((90, 90), (194, 198), (20, 30)):
        ratio = integrate.quad(
            lambda p, k=agreed, n=n: a * p ** (a - 1) * (p / m) ** k * ((1 - p) / (1 - m)) ** (n - k),
            m,
            1,
        )[0] / (1 - m**a)
        assert certificate_bettor.mixture(agreed, n, a) == pytest.approx(np.log(ratio), abs=1e-6)
    rng = np.random.default_rng(0)
    ever = 0
    for _ in range(300):  # streams at the target: the mixture ever reaching 20 at most about 5%
        xs = np.cumsum(rng.random(600) < m)
        ever += any(certificate_bettor.mixture(int(k), i + 1, a) >= np.log(20) for i, k in enumerate(xs))
    assert ever / 300 <= 0.08
