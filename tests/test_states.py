"""The rollout domain's enums are the strings the policy, the API and the database already use."""

from __future__ import annotations

import json
from typing import get_args

from shadowswitch.api.schemas import RampCommand, RolloutChange
from shadowswitch.policy.models import Mode
from shadowswitch.states import Circuit, DecisionPath, RampAction, RolloutMode, Route


def test_the_policy_and_the_api_accept_exactly_the_enum_values() -> None:
    assert set(get_args(Mode)) == {m.value for m in RolloutMode}
    api_modes = get_args(RolloutChange.model_fields["mode"].annotation)[0]
    assert set(get_args(api_modes)) == {m.value for m in RolloutMode}
    assert set(get_args(RampCommand.model_fields["action"].annotation)) == {a.value for a in RampAction}


def test_members_are_their_strings_on_the_wire_and_in_text() -> None:
    assert json.dumps({"path": DecisionPath.FALLBACK}) == '{"path": "fallback"}'
    assert f"{Circuit.HALF_OPEN}" == "half_open" and Route.LOCAL == "local"
    assert RolloutMode.CANARY == "canary"  # a row read back holds a plain string
