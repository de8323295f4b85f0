"""What `serve --workers N` imports once, in the forkserver its workers are forked from
(cli/serving.py): the libraries are then in pages the workers share, not imported by each.

LiteLLM imports much more on its first call: a mocked one (no network, no thread left behind)
imports that here too. `gc.freeze()` last: a worker's collections would otherwise write to every
object imported here, and each page written is a page copied.
"""

import asyncio
import gc
import logging

from shadowswitch.server.offline import stay_offline

stay_offline()  # before LiteLLM's import: its cost map then loads from disk

from shadowswitch.engines.generative import LiteLLMEngine  # noqa: E402
from shadowswitch.server.app import app_from_env  # noqa: E402, F401  the proxy

try:
    asyncio.run(LiteLLMEngine().warm_up())
except Exception:  # only a saving (each worker warms LiteLLM up again); an error escaping here
    # would end the forkserver, and every worker's start with it
    logging.getLogger(__name__).warning("LiteLLM's warm-up failed in the forkserver", exc_info=True)
gc.collect()
gc.freeze()
