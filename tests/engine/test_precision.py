"""`engine.precision`: the models in int8 load, and decide like the float ones through the engine."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import ValidationError

from shadowswitch.engines.engine_set import EngineSet
from shadowswitch.engines.local.choice.candidates import offered_tools
from shadowswitch.engines.local.runtime.models import default_cache_dir, load_models, precision_of
from shadowswitch.engines.local.schema import is_valid
from shadowswitch.policy.models import ModelSource, Policy
from shadowswitch.request import ChatView
from tests.support.engine_requests import TOOLS, ask
from tests.support.policies import ROOMY

THRESHOLDS = {"min_confidence": 0.0, "min_margin": 0.0, "certify": False}


def test_a_precision_the_engine_lacks_is_refused_by_name() -> None:
    with pytest.raises(ValidationError) as caught:
        Policy(task_type="t", engine={"precision": "int4"})
    assert "precision" in str(caught.value) and "'float' or 'int8'" in str(caught.value)
    with pytest.raises(ValueError, match="precision 'fp16': choose float or int8"):
        load_models(ModelSource("embedded", precision="fp16"))  # refused before any model loads


def test_the_policy_names_its_precision_in_the_engine_it_is_served_by() -> None:
    int8 = Policy(task_type="t", engine={"precision": "int8"}).engine.source
    other = Policy(task_type="t", engine={"precision": "float"}).engine.source
    assert int8 != other and int8.precision == "int8" and "int8" in str(int8)


@pytest.fixture(scope="module")
def int8_engine() -> Iterator[Any]:
    from shadowswitch.engines.local import create_engine

    built = create_engine(ModelSource("embedded", precision="int8"))
    yield built
    built.close()


@pytest.mark.slow
def test_both_models_load_in_int8(int8_engine: Any, local_engine: Any) -> None:
    models = int8_engine.models
    assert precision_of(models.lm) == precision_of(models.encoder) == "int8"
    assert precision_of(local_engine.models.encoder) != "int8"
    # the vectors each precision embeds are cached under names of their own
    assert int8_engine.engine.encoder.cache_key != local_engine.engine.encoder.cache_key


@pytest.mark.slow
@pytest.mark.parametrize(
    "text",
    ["What's the weather like in Paris right now?", "Send an email to bob@example.com saying hello"],
)
async def test_an_int8_policy_decides_through_its_own_engine(
    int8_engine: Any, local_engine: Any, text: str
) -> None:
    policies = {
        p: Policy(task_type="t", engine={**ROOMY, **THRESHOLDS, "precision": p}) for p in ("float", "int8")
    }
    engines = EngineSet(
        {policies["float"].engine.source: local_engine, policies["int8"].engine.source: int8_engine}
    )
    request = ChatView.parse(ask(text, TOOLS))
    choice = await engines.decide(request, policies["int8"])
    assert choice.kind == "tool" and choice.abstain_reason is None
    tool = next(t for t in offered_tools(request) if t.id == choice.name)
    assert is_valid(choice.arguments, tool.parameters)
    same = await engines.decide(request, policies["float"])
    assert (choice.name, choice.arguments) == (same.name, same.arguments)


@pytest.mark.slow
def test_int8_keeps_no_page_of_the_float_model_file() -> None:
    """Quantising left the float32 files mapped and resident (the LM's ~510 MB held by reference
    cycles, the encoder's by the biases its int8 layers keep); the server freezes its heap once
    the models are in, so nothing after the load would collect them. Collector off, as for frozen
    objects; only the mappings this load made are counted (the session's float engine has its own)."""
    import gc

    from shadowswitch.engines.local.runtime.models import load_encoder, load_lm

    before = set(_mappings())
    gc.disable()
    try:
        lm, _ = load_lm("embedded", default_cache_dir(), "int8")
        encoder, _ = load_encoder("int8")
        assert precision_of(lm) == precision_of(encoder) == "int8"
        made = {where: kb for where, kb in _mappings().items() if where not in before}
        assert sum(made.values()) < 1_000, made
    finally:
        gc.enable()


def _mappings() -> dict[tuple[str, str], int]:
    """Resident kB of each of this process's mappings of a safetensors file (/proc/self/smaps),
    by (address range, file)."""
    resident: dict[tuple[str, str], int] = {}
    where: tuple[str, str] | None = None
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            fields = line.split()
            if "-" in fields[0] and len(fields) >= 5:  # a mapping's header line
                named = len(fields) == 6 and fields[5].endswith(".safetensors")
                where = (fields[0], fields[5]) if named else None
            elif where is not None and fields[0] == "Rss:":
                resident[where] = int(fields[1])
    return resident
