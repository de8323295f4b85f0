"""`python -m examples.shop --base-url URL`: the shop's conversations against an OpenAI-compatible URL."""

from __future__ import annotations

import argparse
import os
import sys

from openai import OpenAI

from examples.shop.agent import MODEL, ShopAgent
from examples.shop.scenarios import scenarios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m examples.shop", description=__doc__)
    parser.add_argument("--base-url", default="http://127.0.0.1:8787/v1", help="ends in /v1")
    parser.add_argument("--model", default=MODEL)
    parser.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY", "unused"))
    parser.add_argument("--only", default="", help="comma-separated request ids or kinds (default: all)")
    args = parser.parse_args(argv)
    wanted = {t for t in args.only.split(",") if t}
    chosen = [s for s in scenarios() if not wanted or s.id in wanted or s.intent in wanted]
    unknown = wanted - {s.id for s in chosen} - {s.intent for s in chosen}
    if unknown:
        parser.error(f"unknown requests: {', '.join(sorted(unknown))}")
    agent = ShopAgent(OpenAI(base_url=args.base_url, api_key=args.api_key), args.model)
    succeeded = 0
    for scenario in chosen:
        outcome = agent.run(scenario)
        succeeded += outcome.success
        paths = ",".join(s.path or "-" for s in outcome.steps)
        status = "ok  " if outcome.success else "FAIL"
        steps = f"{len(outcome.steps)} steps  [{paths}]"
        print(f"{status} {scenario.id:<22} {outcome.seconds:6.2f} s  {steps} {outcome.error or ''}")
    print(f"{succeeded}/{len(chosen)} conversations succeeded")
    return 0 if succeeded == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
