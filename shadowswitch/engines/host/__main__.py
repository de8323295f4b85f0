"""`python -m shadowswitch.engines.host --socket PATH`: the engine process `serve --workers N` starts."""

from __future__ import annotations

import argparse
from pathlib import Path

from shadowswitch.engines.host.server import run
from shadowswitch.server.settings import Settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--socket", type=Path, required=True, help="Unix socket to serve the workers on")
    parser.add_argument("--log-level", default="info")
    args = parser.parse_args()
    run(args.socket, Settings(), args.log_level)  # the same environment as the workers'


if __name__ == "__main__":
    main()
