"""Hand-written tool requests for the engine tests (not BFCL cases)."""

from __future__ import annotations

from typing import Any


def tool(name: str, description: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    params = {"type": "object", "properties": props, "required": required}
    return {"type": "function", "function": {"name": name, "description": description, "parameters": params}}


def ask(text: str, tools: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    request: dict[str, Any] = {"messages": [{"role": "user", "content": text}], **extra}
    if tools is not None:
        request["tools"] = tools
    return request


WEATHER = tool(
    "get_weather",
    "Get the current weather for a city",
    {
        "city": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    },
    ["city"],
)
FLIGHT = tool(
    "book_flight",
    "Book a plane ticket between two cities",
    {
        "origin": {"type": "string", "description": "departure city"},
        "destination": {"type": "string", "description": "arrival city"},
        "passengers": {"type": "integer", "description": "number of passengers"},
    },
    ["origin", "destination"],
)
TRIANGLE = tool(
    "triangle_area",
    "Calculate the area of a triangle from its base and height",
    {
        "base": {"type": "number", "description": "length of the base"},
        "height": {"type": "number", "description": "height of the triangle"},
    },
    ["base", "height"],
)
EMAIL = tool(
    "send_email",
    "Send an email message to a recipient",
    {
        "to": {"type": "string", "description": "recipient email address"},
        "subject": {"type": "string", "description": "subject line"},
    },
    ["to"],
)
TOOLS = [WEATHER, FLIGHT, TRIANGLE, EMAIL]
