"""The SIMULATED large model for the help desk: the demo's simulated model, taught this task set.

It answers a user turn it recognises with the expected calls, one after another, then a sentence;
an expected call the back office refuses (`Call.fails`) counts as done, since the good model
reads the error and tells the user, while any other error (the back office's, or the agent's
"not valid JSON") is a call it makes again. Everything
else (the malformed-call rate, the best-effort answer to text it does not know, the HTTP server)
is examples/demo's.
"""

from __future__ import annotations

from typing import Any

from examples.demo.simulated import SimulatedModel
from examples.demo.upstream import Simulated
from examples.helpdesk.task_set import MAX_PER_TEMPLATE, TASKS, written_out


class HelpdeskModel(SimulatedModel):
    def known_turns(self) -> dict[str, Any]:
        # The task set, and every task a longer stream writes out of the same templates.
        tasks = [*TASKS, *written_out(MAX_PER_TEMPLATE)]
        return {turn.user: turn for task in tasks for turn in task.turns}

    def next_call(self, turn: Any, results: list[dict[str, Any]]) -> Any:
        done = 0
        for result in results:
            if done >= len(turn.calls):
                break
            content = str(result.get("content", ""))
            refused, unread = content.startswith("error"), "not valid JSON" in content
            done += not refused or (turn.calls[done].fails and not unread)
        return turn.calls[done] if done < len(turn.calls) else None

    def reply(self, results: list[dict[str, Any]], chinese: bool = False) -> str:
        if not results:
            return "You're welcome! Anything else the help desk can do for you?"
        last = str(results[-1].get("content", ""))
        if last.startswith("error"):
            return f"Sorry, I could not do that: {last.removeprefix('error: ')}"
        return f"Done. The back office says: {last[:240]}"


def simulated(latency: tuple[float, float] = (0.0, 0.0), error_rate: float = 0.0, seed: int = 7) -> Simulated:
    """The help desk's simulated upstream, for examples.demo.upstream.create_upstream."""
    return Simulated(latency, error_rate, seed, model_class=HelpdeskModel)
