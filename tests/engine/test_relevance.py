"""When no tool should be called: the "answer directly" score."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from shadowswitch.engines.local.choice.candidates import NO_TOOL_ID
from shadowswitch.engines.local.choice.relevance import (
    agreement,
    metric_match,
    no_tool_features,
    no_tool_level,
)
from shadowswitch.engines.local.conversation import intent_text
from shadowswitch.policy.models import Policy
from tests.support.engine_requests import TOOLS, ask
from tests.support.policies import ROOMY

POLICY = Policy(task_type="t", engine={**ROOMY, "min_confidence": 0.0, "min_margin": 0.0})


def test_features_count_required_values_the_text_does_not_supply() -> None:
    assert no_tool_features([]) == {"bias": 1.0, "unfilled": 0.0, "reference": 0.0, "margin": 0.0}
    assert no_tool_features([("str", 2.5), ("num", None)])["unfilled"] == 0.5
    assert no_tool_features([("str", 2.5), ("str", -1.0), ("num", 0.3)])["unfilled"] == pytest.approx(1 / 3)
    assert no_tool_features([("str", 2.5), ("str", 1.0)], {"str": 2.0})["unfilled"] == 0.5
    weights = {"bias": 0.3, "unfilled": 0.2, "cutoff:str": 2.0, "cutoff:num": 0.5}
    assert no_tool_level([("str", None)], weights) == pytest.approx(0.5)
    assert no_tool_level([("str", 1.0)], weights) == pytest.approx(0.5)
    assert no_tool_level([("str", 3.0)], weights) == pytest.approx(0.3)
    assert no_tool_level([("num", 1.0)], weights) == pytest.approx(0.3)  # a number needs fewer cues


def test_an_older_calibration_with_one_cutoff_applies_it_to_every_group() -> None:
    weights = {"bias": 0.3, "unfilled": 0.2, "cutoff": 2.0}
    assert no_tool_level([("num", 1.0)], weights) == pytest.approx(0.5)
    assert no_tool_level([("date", 3.0)], weights) == pytest.approx(0.3)


def test_addresses_are_read_by_kind_for_the_choice() -> None:
    assert intent_text("Send it to ann.lee+x@corp.co.uk now") == "Send it to an email address now"
    assert intent_text("summarise https://example.com/a?b=1 please") == "summarise a link please"
    assert intent_text("meet at 10:30, room 4") == "meet at 10:30, room 4"


def rows(*cases: tuple[Any, ...], product: list[float] | None = None) -> list[Any]:
    """Choice rows for `fit_choice`, each with the vector product `metric_match` reads."""
    return [(*case, torch.tensor(product or [0.0, 0.0])) for case in cases]


def _no_tool_probability(choice: Any) -> float:
    return next(c.prob for c in choice.trace.candidates if c.id == NO_TOOL_ID)


@pytest.mark.slow
async def test_a_tool_the_text_cannot_fill_makes_answering_directly_likelier(engine: Any) -> None:
    filled = await engine.decide(ask("Area of a triangle with base 12 and height 7?", TOOLS), POLICY)
    unfilled = await engine.decide(ask("Area of a triangle, roughly?", TOOLS), POLICY)
    assert filled.name == "triangle_area"
    assert _no_tool_probability(unfilled) > _no_tool_probability(filled)


def test_calibration_finds_a_level_that_separates_tool_from_no_tool() -> None:
    from bench.calibrate import fit_choice

    tool_cases = rows(
        ([0.62, 0.30], [("str", 3.0)], 0, 0.3, 0), ([0.55, 0.41], [("str", 2.5), ("num", 4.0)], 0, 0.3, 0)
    )
    no_tool_cases = rows(
        ([0.35, 0.20], [("str", None)], -1, 0.3, 0), ([0.50, 0.10], [("str", -1.0)], -1, 0.3, 0)
    )
    weights, _, temperature, balanced = fit_choice((tool_cases + no_tool_cases) * 5)
    assert balanced == 1.0
    assert 0.01 <= temperature <= 0.5
    assert no_tool_level([("str", 3.0)], weights, 0.3) < 0.55
    assert no_tool_level([("str", -1.0)], weights, 0.3) >= 0.50


def test_calibration_weighs_the_reference_similarity_when_only_it_separates() -> None:
    """A formal question resembles every tool: the same top similarity means a tool when the
    best unrelated reference tool is far below it, and no tool when it is close."""
    from bench.calibrate import fit_choice

    tool_cases = rows(([0.50], [], 0, 0.20, 1), ([0.35], [], 0, 0.05, 0))
    no_tool_cases = rows(([0.50], [], -1, 0.48, 1), ([0.35], [], -1, 0.33, 0))
    weights, _, _, balanced = fit_choice((tool_cases + no_tool_cases) * 5)
    assert balanced == 1.0
    assert weights["reference"] > 0
    assert no_tool_level([], weights, 0.20) < 0.50 <= no_tool_level([], weights, 0.48)


def test_calibration_lowers_the_level_when_the_best_tool_stands_out() -> None:
    """Among several offered tools, one well above the rest was likely meant: with the same top
    similarity and reference, the margin over the runner-up separates tool from no tool."""
    from bench.calibrate import fit_choice
    from shadowswitch.engines.local.choice.relevance import top_margin

    tool_cases = rows(([0.50, 0.20], [], 0, 0.3, 0), ([0.45, 0.15], [], 0, 0.3, 1))
    no_tool_cases = rows(([0.50, 0.47], [], -1, 0.3, 0), ([0.45, 0.44], [], -1, 0.3, 1))
    weights, _, _, balanced = fit_choice((tool_cases + no_tool_cases) * 5)
    assert balanced == 1.0 and weights["margin"] < 0
    assert top_margin([0.5, 0.2]) == pytest.approx(0.3) and top_margin([0.5]) == 0.0
    assert no_tool_level([], weights, 0.3, 0.30) < 0.50 <= no_tool_level([], weights, 0.3, 0.03)


def test_calibration_learns_which_dimensions_of_a_match_mean_a_tool() -> None:
    """Same similarity, reference and coverage: only where the request and the tool agree (the
    elementwise product of their vectors) separates tool from no tool, and the fitted metric
    lowers the level for the first kind of agreement and raises it for the second."""
    from bench.calibrate import fit_choice

    case = ([0.45], [], 0, 0.3, 1)
    tool_cases = rows(case, (case[0], [], 0, 0.3, 0), product=[0.3, 0.15])
    no_tool_cases = rows((case[0], [], -1, 0.3, 1), (case[0], [], -1, 0.3, 0), product=[0.15, 0.3])
    weights, metric, _, balanced = fit_choice((tool_cases + no_tool_cases) * 5)
    assert balanced == 1.0 and metric[0] < 0 < metric[1]
    tool = torch.tensor([0.5, 0.5])
    meant = metric_match(agreement(torch.tensor([0.6, 0.3]), tool), metric)  # agrees where tool cases did
    passing = metric_match(agreement(torch.tensor([0.3, 0.6]), tool), metric)
    assert no_tool_level([], weights, 0.3, 0.0, meant) < 0.45 <= no_tool_level([], weights, 0.3, 0.0, passing)


def test_without_a_fitted_metric_the_match_adds_nothing() -> None:
    query, tool = torch.tensor([0.6, 0.8]), torch.tensor([0.8, 0.6])
    assert metric_match(agreement(query, tool), []) == 0.0
    assert metric_match(agreement(query, tool), [1.0, 1.0]) == pytest.approx(
        float(query @ tool)
    )  # the cosine


@pytest.mark.slow
def test_reference_tools_leave_out_near_copies_of_an_offered_tool(engine: Any, tmp_path: Any) -> None:
    """The reference similarity compares the request with tools unrelated to the offered ones:
    a reference copy of an offered tool must not count, an unrelated one must."""
    from shadowswitch.engines.local.choice.reference import ReferenceTools, write_texts

    encoder = engine.engine.encoder
    weather = "get weather: Current weather for a city"
    stocks = "stock price: The latest price of a stock ticker"
    write_texts([weather, stocks], tmp_path / "reference.json")
    refs = ReferenceTools.load(encoder, tmp_path / "cache", tmp_path / "reference.json")
    assert list((tmp_path / "cache" / "reference").glob("*.pt"))  # the next start reads the cache
    query = encoder.embed(["What's the weather in Paris?"])[0]
    alone = refs.best(query, encoder.embed([stocks]))
    assert alone == pytest.approx(float(encoder.embed([weather])[0] @ query), abs=1e-5)
    assert refs.best(query, encoder.embed([weather])) < alone - 0.2  # the copy is left out
    again = ReferenceTools.load(encoder, tmp_path / "cache", tmp_path / "reference.json")
    assert torch.equal(again.vectors, refs.vectors)


@pytest.mark.slow
def test_reference_vectors_are_cached_per_encoder_dtype(engine: Any, tmp_path: Any) -> None:
    """Vectors embedded in bfloat16 differ from float32 ones: a start in the other dtype embeds
    the references again rather than reading the first one's."""
    import copy

    from shadowswitch.engines.local.choice.reference import ReferenceTools, write_texts

    encoder = engine.engine.encoder
    write_texts(["get weather: Current weather for a city"], tmp_path / "reference.json")
    ReferenceTools.load(encoder, tmp_path / "cache", tmp_path / "reference.json")
    other = copy.copy(encoder)
    # The other dtype than this CPU chose (models.fastest_dtype picks bfloat16 where it is fast).
    flipped = torch.float32 if encoder.model.dtype == torch.bfloat16 else torch.bfloat16
    other.model = copy.deepcopy(encoder.model).to(flipped)
    ReferenceTools.load(other, tmp_path / "cache", tmp_path / "reference.json")
    assert len(list((tmp_path / "cache" / "reference").glob("*.pt"))) == 2


def test_a_parallel_case_is_one_tool_use_per_called_tool_with_each_of_its_calls() -> None:
    """Calibration reads every call of a parallel case: one use of each tool, right when the
    filled call matches any of that tool's calls."""
    from bench.bfcl.data import load_cases
    from bench.calibrate import tool_uses

    parallel = next(c for c in load_cases("parallel", 20) if len(c.answers) > 1)
    (tool, answers), *rest = tool_uses(parallel)
    assert not rest and parallel.name_map[tool.id] in parallel.answers[0]
    assert answers == [next(iter(call.values())) for call in parallel.answers]

    called = lambda case: {name for call in case.answers for name in call}  # noqa: E731
    several = next(c for c in load_cases("parallel_multiple", 20) if len(called(c)) > 1)
    assert {several.name_map[t.id] for t, _ in tool_uses(several)} == called(several)


@pytest.mark.slow
def test_unrelated_tool_cases_offer_tools_of_other_cases_unrelated_to_the_question(engine: Any) -> None:
    from bench.bfcl.data import load_cases
    from bench.calibrate import UNRELATED, unrelated_tool_cases
    from shadowswitch.engines.local.choice.candidates import offered_tools
    from shadowswitch.request import ChatView

    decider = engine.engine
    cases = load_cases("parallel_multiple", 12)
    made, own = unrelated_tool_cases(decider, cases, per_case=2)
    assert len(made) == 3 * len(cases) and all(not c.expects_call for c in made)  # 2 alone, 1 together
    for case in made:
        source = next(c for c in cases if case.id.endswith(c.id))
        offered = offered_tools(ChatView.parse(case.request))
        assert len(offered) in (1, 2) and not any(t.id in source.name_map for t in offered)
        assert case.request["messages"] == source.request["messages"]
        assert own[case.id] == [t.text for t in offered_tools(ChatView.parse(source.request))]
        vectors = decider.encoder.embed([*(t.text for t in offered), *own[case.id]])
        mine = vectors[len(offered) :]
        assert (
            float((vectors[: len(offered)] @ mine.T).max()) < UNRELATED + 0.02
        )  # bf16 batches differ a little


def test_reference_copies_are_kept_per_offered_tool_set() -> None:
    from shadowswitch.engines.local.choice.reference import ReferenceTools

    draw = torch.Generator().manual_seed(0)
    vectors = torch.nn.functional.normalize(torch.randn(50, 64, generator=draw), dim=-1)
    refs = ReferenceTools(vectors)
    query = torch.nn.functional.normalize(torch.randn(64, generator=draw), dim=0)
    offered = vectors[:2].clone()
    first = refs.best(query, offered)
    assert first == ReferenceTools(vectors).best(query, offered) and len(refs.copies_of) == 1
    assert refs.best(query, offered.clone()) == first and len(refs.copies_of) == 1  # the same set
    refs.best(query, vectors[2:4])
    assert len(refs.copies_of) == 2
    sims = (vectors @ query).tolist()
    assert first == pytest.approx(max(sims[2:]), abs=1e-6)  # the two copies left out
