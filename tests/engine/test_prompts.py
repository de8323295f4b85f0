"""Prompts in the tokenizer's own chat template; for the embedded SmolLM2, byte for byte as before."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from transformers import AutoTokenizer

from shadowswitch.engines.local.choice.candidates import NO_TOOL_ID, Candidate
from shadowswitch.engines.local.runtime.chat import CHATML, ChatFormat, System, Turn
from shadowswitch.engines.local.runtime.lm import LanguageModel
from shadowswitch.engines.local.runtime.prompts import (
    arguments_fixed,
    arguments_variable,
    choice_fixed,
    choice_variable,
)
from tests.support.templates import GEMMA, LLAMA2

pytestmark = pytest.mark.slow

TOOL = Candidate("get_weather", "tool", "get weather: Current weather for a city. Uses a service.")
NONE = Candidate(NO_TOOL_ID, "no_tool", "answer directly: reply in plain text without calling any tool")
PARAMS = {"properties": {"city": {"type": "string", "description": "City name"}}, "required": ["city"]}


def chatml(role: str, text: str) -> str:
    """How the prompts were written before they followed the tokenizer's template."""
    return f"<|im_start|>{role}\n{text}<|im_end|>\n"


def test_the_embedded_model_s_prompts_are_byte_identical_to_chatml(engine: Any) -> None:
    lm: LanguageModel = engine.engine.lm
    assert lm.format.origin == "chat template"  # the GGUF file carries SmolLM2's template
    options = (
        "- get_weather: Current weather for a city\n- none: reply in plain text without calling any tool"
    )
    conversation = "What's the weather in Paris?"
    assert lm.text(choice_fixed([TOOL, NONE])) == chatml(
        "system", "Pick the one option that best handles the user's last message.\nOptions:\n" + options
    )
    assert (
        lm.text(choice_variable(conversation))
        == chatml("user", conversation) + "<|im_start|>assistant\nOption:"
    )
    signature = '{"name":"get_weather","parameters":{"city":{"type":"string","description":"City name"}}}'
    assert lm.text(arguments_fixed("get_weather", PARAMS)) == chatml(
        "system", "Call the function with argument values taken from the user's message.\n" + signature
    )
    assert lm.text(arguments_variable(conversation, "get_weather", {"unit": "celsius"}, "city")) == (
        chatml("user", conversation)
        + '<|im_start|>assistant\n{"name":"get_weather","arguments":{"unit":"celsius","city":'
    )
    assert lm.format.end_of_turn == "<|im_end|>"
    assert lm.format == replace(CHATML, origin="chat template")


@pytest.fixture(scope="module")
def tokenizer_dir(engine: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SmolLM2's tokenizer, saved, to be loaded afresh with other templates."""
    path = tmp_path_factory.mktemp("tokenizer")
    engine.engine.lm.tokenizer.save_pretrained(path)
    return path


def with_template(path: Path, template: str | None) -> Any:
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    tokenizer.chat_template = template
    return tokenizer


@pytest.mark.parametrize(("template", "end"), [(GEMMA, "<end_of_turn>"), (LLAMA2, "<|im_end|>")])
def test_other_templates_write_the_conversation_up_to_the_answer(
    tokenizer_dir: Path, template: str, end: str
) -> None:
    tokenizer = with_template(tokenizer_dir, template)
    chat = ChatFormat.of(tokenizer)
    system, user, answer = "Pick one option.\n- a: first", "I want the first", "Option:"
    prompt = chat.fixed(System(system)) + chat.variable(Turn(user, answer))
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": user},
        {"role": "assistant", "content": answer},
    ]
    if template == GEMMA:  # no system role: the instructions open the user's turn
        messages = [{"role": "user", "content": system + "\n\n" + user}, messages[2]]
    assert tokenizer.apply_chat_template(messages, tokenize=False).startswith(prompt)
    assert user not in chat.fixed(System(system))  # the fixed part holds nothing of the request
    assert chat.end_of_turn == end  # Llama-2 ends an answer with the EOS token, here SmolLM2's


def test_a_tokenizer_without_a_template_gets_chatml_and_says_so(
    tokenizer_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        chat = ChatFormat.of(with_template(tokenizer_dir, None))
    assert chat == CHATML and "no chat template" in caplog.text
