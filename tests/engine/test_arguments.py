"""Argument filling without a model: every value valid and grounded, whatever the schema (hypothesis)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings

from shadowswitch.engines.local.arguments.extract import Span, extract
from shadowswitch.engines.local.arguments.features import (
    TextIndex,
    direction,
    example_shapes,
    labelled,
    names_param,
    same_word,
    shape,
    year,
)
from shadowswitch.engines.local.arguments.filler import ArgumentFiller, Pair, close_values
from shadowswitch.engines.local.arguments.params import params_of, stem
from shadowswitch.engines.local.arguments.values import compared_text, unlabelled, wrapping
from shadowswitch.engines.local.calibration import load_calibration
from shadowswitch.engines.local.schema import normalise
from tests.support.arguments import FILLER, TEXTS, no_similarity, schemas
from tests.support.provenance import assert_grounded


def values(schema: dict[str, Any], text: str) -> dict[str, Any]:
    return FILLER.fill(schema, text).arguments


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas(), TEXTS)
def test_every_call_validates(schema: dict[str, Any], text: str) -> None:
    filled = FILLER.fill(schema, text)
    if not filled.missing:
        jsonschema.validate(filled.arguments, schema)
    assert_grounded(filled.arguments, filled.sources, schema, text)


def test_loose_types_are_normalised() -> None:
    loose = {
        "type": "dict",
        "properties": {"x": {"type": "float"}, "t": {"type": "tuple"}, "a": {"type": "any"}},
    }
    assert normalise(loose) == {
        "type": "object",
        "properties": {"x": {"type": "number"}, "t": {"type": "array"}, "a": {}},
    }


def test_one_span_fills_one_parameter_and_scale_is_kept() -> None:
    schema = {
        "type": "object",
        "required": ["amount", "years"],
        "properties": {
            "amount": {"type": "number", "description": "amount invested"},
            "years": {"type": "integer", "description": "number of years"},
        },
    }
    args = values(schema, "invest $1M for 10 years")
    assert args == {"amount": 1_000_000, "years": 10}


def test_from_and_to_go_to_source_and_target() -> None:
    schema = {
        "type": "object",
        "required": ["destination", "origin"],
        "properties": {
            "destination": {"type": "string", "description": "arrival city"},
            "origin": {"type": "string", "description": "departure city"},
        },
    }
    want = {"destination": "Berlin", "origin": "Paris"}
    assert values(schema, "Find flights from Paris to Berlin") == want
    assert values(schema, "Find flights to Berlin from Paris") == want


def test_a_range_fills_its_minimum_and_maximum() -> None:
    schema = {
        "type": "object",
        "required": ["max_age", "min_age"],
        "properties": {"max_age": {"type": "integer"}, "min_age": {"type": "integer"}},
    }
    assert values(schema, "someone between 25 and 35") == {"max_age": 35, "min_age": 25}


def test_a_year_parameter_prefers_a_number_that_reads_as_a_year() -> None:
    year_param = params_of({"properties": {"year": {"type": "integer"}}})[0]
    scores = {s.value: year(year_param, s) for s in extract("5 songs from 2022") if s.kind == "number"}
    assert scores == {5: -1.0, 2022: 1.0}


def test_nested_objects_are_filled_from_the_text() -> None:
    schema = {
        "type": "object",
        "required": ["order"],
        "properties": {
            "order": {
                "type": "object",
                "required": ["order_id"],
                "properties": {
                    "order_id": {"type": "string", "description": "the order id"},
                    "quantity": {"type": "integer", "description": "how many"},
                },
            },
            "filters": {"type": "object", "properties": {"color": {"type": "string"}}},
        },
    }
    args = values(schema, "Change order AB-1234 to quantity 3")
    assert args == {"order": {"order_id": "AB-1234", "quantity": 3}}


def test_flags_follow_what_the_user_says() -> None:
    schema = {
        "type": "object",
        "properties": {
            "include_hidden": {"type": "boolean", "default": False},
            "has_garage": {"type": "boolean"},
            "tax_exempt": {"type": "boolean"},
            "is_unisex": {"type": "boolean"},
        },
    }
    assert values(schema, "List the files, including hidden ones") == {"include_hidden": True}
    assert values(schema, "A flat in Austin, I don't care about a garage") == {}
    assert values(schema, "What tax do I pay on $250?") == {}
    assert values(schema, "Find a barber that shouldn't be unisex") == {"is_unisex": False}


def test_a_flag_said_in_another_form_of_its_word_is_set_even_to_its_default() -> None:
    schema = {
        "type": "object",
        "properties": {
            "standardize": {"type": "boolean"},
            "detailed": {"type": "boolean", "default": False},
            "private_visibility": {"type": "boolean", "default": False},
            "equal_variance": {"type": "boolean", "default": True},
            "portrait": {"type": "boolean"},
        },
    }
    assert values(schema, "Fit it and apply standardization, with details") == {
        "standardize": True,
        "detailed": True,
    }
    assert values(schema, "Send $50 to Mary privately") == {"private_visibility": True}
    # Said, so sent, although the default says the same; a prefix alone is not a form: no portrait.
    assert values(schema, "A t-test assuming equal variance; port 80") == {"equal_variance": True}
    assert same_word("include", "including") and same_word("smoke", "smoking")
    assert not same_word("port", "portrait") and not same_word("public", "publish")


def test_an_identifier_loses_the_word_that_labels_it() -> None:
    product = params_of({"properties": {"product_id": {"type": "string"}}})[0]
    component = params_of({"properties": {"component": {"type": "string", "description": "Its UUID"}}})[0]
    assert unlabelled(product, "ID SK123") == "SK123" and unlabelled(product, "Id: B1004") == "B1004"
    assert unlabelled(component, "UUID AB1010CD") == "AB1010CD"
    assert unlabelled(product, "Room 101") == "Room 101"  # "room" labels no product
    assert unlabelled(product, "ID card") == "ID card"  # nothing identifier-like follows
    schema = {"type": "object", "required": ["product_id"], "properties": {"product_id": {"type": "string"}}}
    assert values(schema, "Is product ID SK123 in stock?") == {"product_id": "SK123"}
    assert values(schema, "Is product 'ID SK123' in stock?") == {"product_id": "ID SK123"}


def test_a_word_and_its_plural_meet() -> None:
    for plural, singular in [
        ("names", "name"),
        ("dates", "date"),
        ("cities", "city"),
        ("boxes", "box"),
        ("classes", "class"),
        ("cases", "case"),
    ]:
        assert stem(plural) == stem(singular), plural
    assert stem("status") == "status" and stem("analysis") == "analysis"
    flag = {
        "type": "object",
        "properties": {"useShortName": {"type": "boolean"}},
        "required": ["useShortName"],
    }
    assert values(flag, "Complete the table name; I prefer short names") == {"useShortName": True}


def test_a_value_written_like_the_descriptions_example_is_preferred() -> None:
    assert shape("San Diego, CA") == shape("New York, NY") == "Aa, A"
    assert shape("2023-03-02") == "9-9-9" and shape("2023-03") == "9-9"
    assert example_shapes("Date, in the format 'YYYY-MM-DD'") == {"9-9-9"}
    description = (
        "The city where the event is searched for, in the format of 'City, State' (e.g., 'San Francisco, CA')"
    )
    city = {
        "type": "object",
        "required": ["city"],
        "properties": {"city": {"type": "string", "description": description}},
    }
    text = "Find any Music events happening in San Diego, CA on 05/05/2023?"
    assert values(city, text) == {"city": "San Diego, CA"}


def test_a_sentence_around_a_specific_value_is_marked_as_wrapping_it() -> None:
    spans = extract("Where is this IP? It's 10.0.0.7, and it keeps showing up.")
    wrappers = {s.text for s in wrapping(spans)}
    assert "It's 10.0.0.7, and it keeps showing up." in wrappers
    assert "10.0.0.7" not in wrappers and "keeps showing" not in wrappers


def test_a_city_gets_its_state_or_country_only_where_the_parameter_asks_for_one() -> None:
    wants = "The destination city, in the format of 'City, State' (e.g., 'Berkeley, CA')"
    bus = {
        "type": "object",
        "required": ["to_city"],
        "properties": {"to_city": {"type": "string", "description": wants}},
    }
    weather = {
        "type": "object",
        "required": ["city"],
        "properties": {"city": {"type": "string", "description": "A city"}},
    }
    assert values(bus, "Find a one-stop bus to Los Angeles") == {"to_city": "Los Angeles, CA"}
    assert values(weather, "What's the weather in Los Angeles?") == {"city": "Los Angeles"}
    abroad = "The city, in the format of 'City, Country', e.g. 'Seoul, South Korea'"
    weather["properties"]["city"]["description"] = abroad
    assert values(weather, "What's the weather in Paris?") == {"city": "Paris, France"}


def test_a_flag_written_as_an_enum_is_set_like_a_flag() -> None:
    flag = {"type": "string", "enum": ["True", "False", "dontcare"], "default": "dontcare"}
    schema = {"type": "object", "properties": {"has_laundry_service": flag, "is_free": flag}}
    text = "Find me a house with laundry service, rated 3.9 or more"
    assert values(schema, text) == {"has_laundry_service": "True"}
    assert values(schema, "A house, not free, no laundry service") == {
        "has_laundry_service": "False",
        "is_free": "False",
    }


def test_a_date_parameter_gets_the_format_its_description_names() -> None:
    schema = {
        "type": "object",
        "required": ["date_of_journey"],
        "properties": {
            "date_of_journey": {"type": "string", "description": "Date of the journey, MM/DD/YYYY"}
        },
    }
    # Without the encoder's similarity the date is not convincing enough for a required value.
    assert FILLER.fill(schema, "a train on April 10, 2023 please").missing == ["date_of_journey"]
    lenient = ArgumentFiller(no_similarity, replace(load_calibration(), no_tool_weights={}))
    assert lenient.fill(schema, "a train on April 10, 2023 please").arguments == {
        "date_of_journey": "04/10/2023"
    }


def test_a_value_labelled_with_its_parameter_name_goes_to_that_parameter() -> None:
    a, c, velocity = params_of(
        {"properties": {k: {"type": "number"} for k in ("a", "c", "initial_velocity")}}
    )
    text = "coefficients 3 for a, 7 for b and -10 for c; or a=1, c = 2; initial velocity of 12 m/s"
    nums = [s for s in extract(text) if s.kind == "number"]
    assert [s.value for s in nums if labelled(a, s, text)] == [3, 1]
    assert [s.value for s in nums if labelled(c, s, text)] == [-10, 2]
    assert [s.value for s in nums if labelled(velocity, s, text)] == [12]
    schema = {
        "type": "object",
        "required": ["a", "b", "c"],
        "properties": {k: {"type": "integer"} for k in "abc"},
    }
    assert values(schema, "Solve 3x^2 + 7x - 10 = 0, with 3 for a, 7 for b, and -10 for c.") == {
        "a": 3,
        "b": 7,
        "c": -10,
    }


def test_the_parameters_own_name_is_not_its_value() -> None:
    ip, customer = params_of({"properties": {k: {"type": "string"} for k in ("ip_address", "customer_id")}})
    spans = {s.text: s for s in extract("The IP is 172.16.254.1, for the customer with ID 123.")}
    assert names_param(ip, spans["IP"]) and names_param(customer, spans["ID"])
    assert not names_param(ip, spans["172.16.254.1"]) and not names_param(customer, spans["123"])
    # test_engine.py: with the encoder, "IP" otherwise wins as the name's own neighbour


def test_a_number_is_compared_with_its_unit() -> None:
    text = "A 30-year-old, 100 kilograms, 170 cm tall; 5% a year for 2 years."
    numbers = [s for s in extract(text) if s.kind in ("number", "percent")]
    assert list(dict.fromkeys(compared_text(s, text) for s in numbers)) == [
        "30 year-old",
        "100 kilograms",
        "170 cm tall",
        "5% a year",
        "2 years",
    ]


def test_values_are_assigned_jointly_not_best_pair_first() -> None:
    name, version = params_of(
        {
            "required": ["name", "version"],
            "properties": {"name": {"type": "string"}, "version": {"type": "string"}},
        }
    )
    bandana, five = Span("bandana", "bandana", "ident", 0, 7), Span("5", "5", "ident", 20, 21)
    scores = {("name", bandana): 4.9, ("name", five): 5.0, ("version", bandana): 0.0, ("version", five): 4.8}
    pairs = [Pair(p, s, s.value, scores[p.name, s]) for p in (name, version) for s in (bandana, five)]
    # best pair first would give name "5" (5.0), leaving version "bandana" (0.0)
    joint = FILLER._joint([name, version], pairs, {}) or {}
    assert {k: pair.value for k, pair in joint.items()} == {"name": "bandana", "version": "5"}


def test_an_amount_s_currency_is_the_source_and_in_a_currency_the_target() -> None:
    params = params_of(
        {"properties": {"from_currency": {"type": "string"}, "to_currency": {"type": "string"}}}
    )
    text = "I have 5000 US dollars. How much is that in yen?"
    spans = {s.value: s for s in extract(text) if s.kind == "currency"}
    index = TextIndex.of(text)
    source, target = params
    assert direction(source, spans["USD"], index) == 1.0 and direction(target, spans["USD"], index) == -1.0
    assert direction(target, spans["JPY"], index) == 1.0 and direction(source, spans["JPY"], index) == -1.0


def test_only_close_text_values_of_required_parameters_are_reranked() -> None:
    term, count, place = params_of(
        {
            "required": ["term", "count"],
            "properties": {
                "term": {"type": "string"},
                "place": {"type": "string"},
                "count": {"type": "integer"},
            },
        }
    )
    lit, urban = Span("lit", "lit", "quoted", 0, 3), Span("Urban", "Urban", "name", 9, 14)
    two = Span("2", 2, "number", 20, 21)
    pairs = [
        Pair(term, urban, "Urban", 3.9),
        Pair(term, lit, "lit", 3.1),
        Pair(place, lit, "lit", 3.0),
        Pair(place, urban, "Urban", 2.9),
        Pair(count, two, 2, 1.0),
    ]
    assert close_values(pairs, "term", 1.0) == ["Urban", "lit"]
    assert close_values(pairs, "term", 0.5) == []  # the runner-up is 0.8 behind
    asked: list[tuple[str, list[Any]]] = []

    def rerank(param: str, values: list[Any]) -> list[float]:
        asked.append((param, values))
        return [-3.0 if v == "Urban" else -1.0 for v in values]

    cal = replace(load_calibration(), value_lm_margin=1.0, value_lm_weight=0.5)
    filler = ArgumentFiller(no_similarity, cal)
    scores = {(x.param.name, x.value): x.score for x in filler._reranked([term, place, count], pairs, rerank)}
    assert asked == [("term", ["Urban", "lit"])]  # not the optional place, not the number
    assert scores["term", "lit"] == 3.1 - 0.5 and scores["term", "Urban"] == 3.9 - 1.5
    assert scores["place", "lit"] == 3.0


BOOKING = {
    "type": "object",
    "properties": {
        "room": {"type": "string", "description": "The room's name"},
        "host": {"type": "string", "description": "Who hosts the meeting"},
    },
    "required": ["room"],
}


def test_a_learned_set_fills_the_value_it_read_or_none() -> None:
    always = {"host": {"set:": 10.0}}  # learned weights that set the host, whatever its value
    never = {"host": {"set:": -10.0}}
    named = "Book the Delta room for Lena Vogel's team meeting"
    assert FILLER.fill(BOOKING, named, ranking=always).arguments == {"room": "Delta", "host": "Lena Vogel"}
    assert FILLER.fill(BOOKING, named, ranking=never).arguments == {"room": "Delta"}
    # the host's best value is the room's: the learned set fills that one or nothing, never the
    # next best ("15:00")
    plain = "Please book the Cedar room for 3pm"
    assert FILLER.fill(BOOKING, plain, ranking=always).arguments == {"room": "Cedar"}
