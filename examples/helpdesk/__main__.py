"""`python -m examples.helpdesk --base-url URL`: run the task set against any OpenAI-compatible URL."""

from __future__ import annotations

import argparse
import os
import sys

from openai import OpenAI

from examples.helpdesk.agent import MODEL, HelpdeskAgent
from examples.helpdesk.task_set import TASKS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m examples.helpdesk", description=__doc__)
    parser.add_argument("--base-url", default="http://127.0.0.1:8787/v1", help="ends in /v1")
    parser.add_argument("--model", default=MODEL)
    parser.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY", "unused"))
    parser.add_argument("--tasks", default="", help="comma-separated task ids or families (default: all)")
    args = parser.parse_args(argv)
    wanted = {t for t in args.tasks.split(",") if t}
    tasks = [t for t in TASKS if not wanted or t.id in wanted or t.kind in wanted]
    unknown = wanted - {t.id for t in tasks} - {t.kind for t in tasks}
    if unknown:
        parser.error(f"unknown tasks: {', '.join(sorted(unknown))}")
    agent = HelpdeskAgent(OpenAI(base_url=args.base_url, api_key=args.api_key), args.model)
    succeeded = 0
    for task in tasks:
        result = agent.run(task)
        succeeded += result.success
        paths = ",".join(s.path or "-" for s in result.steps)
        status = "ok  " if result.success else "FAIL"
        steps = f"{len(result.steps)} steps  [{paths}]"
        print(f"{status} {task.id:<22} {result.seconds:6.2f} s  {steps} {result.error or ''}")
    print(f"{succeeded}/{len(tasks)} tasks succeeded")
    return 0 if succeeded == len(tasks) else 1


if __name__ == "__main__":
    sys.exit(main())
