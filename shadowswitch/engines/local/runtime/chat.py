"""A model family's chat format, read once from its tokenizer's own chat template.

The engine's prompts are a system turn (instructions and the candidates or a tool's signature:
the fixed part, whose KV cache the LM keeps) and a user turn followed by the start of the
assistant's answer (the variable part). `ChatFormat.of` renders such a conversation once with
sentinel strings in place of the texts and cuts the result at them, so that each prompt is the
pieces around the texts: no template rendering per request, the fixed part ends where the
system turn ends, and an answer starts and ends as the template writes a finished one. A
tokenizer without a chat template gets ChatML, said in the log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jinja2 import TemplateError

log = logging.getLogger(__name__)

SYSTEM = "@@SHADOWSWITCH-SYSTEM@@"
USER = "@@SHADOWSWITCH-USER@@"
ANSWER = "@@SHADOWSWITCH-ANSWER@@"
MERGED = "\n\n"  # a template without a system role gets the instructions atop the user's turn


@dataclass(frozen=True)
class System:
    """The fixed part's text: the same for every request that offers the same candidates."""

    text: str


@dataclass(frozen=True)
class Turn:
    """The variable part's texts: the user's turn and the beginning of the assistant's answer."""

    user: str
    answer: str = ""


@dataclass(frozen=True)
class ChatFormat:
    """The text around the system turn, the user turn and the answer, and what ends an answer."""

    before_system: str
    after_system: str  # up to the end of the system turn: the fixed part ends here
    before_user: str
    after_user: str  # the end of the user's turn and the assistant's header
    end_of_turn: str  # what follows a finished answer ("<|im_end|>")
    origin: str  # "chat template" or "ChatML (no chat template)"

    def fixed(self, system: System) -> str:
        return self.before_system + system.text + self.after_system

    def variable(self, turn: Turn) -> str:
        return self.before_user + turn.user + self.after_user + turn.answer

    @classmethod
    def of(cls, tokenizer: Any) -> ChatFormat:
        """The format of `tokenizer`'s chat template; ChatML when it has none."""
        if not getattr(tokenizer, "chat_template", None):
            log.warning("the LM's tokenizer has no chat template: its prompts are written in ChatML")
            return CHATML
        try:
            before_system, after_system, before_user, after_user, end = _pieces(_renderer(tokenizer))
        except (TemplateError, ValueError) as exc:  # ValueError: a sentinel the template dropped
            log.warning("the LM's chat template cannot be read (%s): its prompts are written in ChatML", exc)
            return CHATML
        end = end or str(tokenizer.eos_token or "")
        return cls(before_system, after_system, before_user, after_user, end, "chat template")


CHATML = ChatFormat(
    "<|im_start|>system\n",
    "<|im_end|>\n",
    "<|im_start|>user\n",
    "<|im_end|>\n<|im_start|>assistant\n",
    "<|im_end|>",
    "ChatML (no chat template)",
)

Render = Callable[[list[dict[str, str]]], str]  # messages -> text


def _renderer(tokenizer: Any) -> Render:
    def render(messages: list[dict[str, str]]) -> str:
        return str(tokenizer.apply_chat_template(messages, tokenize=False))

    return render


def _pieces(render: Render) -> tuple[str, str, str, str, str]:
    """(before_system, after_system, before_user, after_user, end_of_turn) of one conversation:
    a system turn, a user turn, an answer."""
    text = _conversation(render)
    system_at, user_at, answer_at = text.index(SYSTEM), text.index(USER), text.index(ANSWER)
    between = text[system_at + len(SYSTEM) : user_at]
    cut = _system_turn_end(render, text[: system_at + len(SYSTEM)], between)
    end = text[answer_at + len(ANSWER) :].strip()  # up to the next turn: "<|im_end|>"
    return text[:system_at], between[:cut], between[cut:], text[user_at + len(USER) : answer_at], end


def _conversation(render: Render) -> str:
    """The sentinel conversation; templates without a system role (Gemma's raises, others drop
    it) get the instructions as the start of the user's turn."""
    answer = {"role": "assistant", "content": ANSWER}
    try:
        text = render([{"role": "system", "content": SYSTEM}, {"role": "user", "content": USER}, answer])
        if SYSTEM in text and text.index(SYSTEM) < text.index(USER):
            return text
    except TemplateError as exc:  # the template's own raise_exception
        log.info("chat template without a system role (%s): instructions open the user's turn", exc)
    return render([{"role": "user", "content": SYSTEM + MERGED + USER}, answer])


def _system_turn_end(render: Render, head: str, between: str) -> int:
    """How much of `between` closes the system turn: what a system-only chat adds after it.
    All of it when the template cannot render a system turn alone (it is request-independent)."""
    try:
        alone = render([{"role": "system", "content": SYSTEM}])
    except TemplateError:  # a template may refuse a chat without a user turn
        return len(between)
    tail = alone[len(head) :]
    return len(tail) if alone.startswith(head) and between.startswith(tail) else len(between)
