"""`bench.certificate_bettor`: both bettors simulated, the product's left as it was."""

from __future__ import annotations

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
