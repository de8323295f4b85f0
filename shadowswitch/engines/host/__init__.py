"""One local engine per host: `serve --workers N` loads the models once, in an engine process
that its N HTTP workers share over a Unix socket (`SharedEngine`), so concurrent requests from
every worker are batched together and the memory is paid once.

The socket speaks HTTP (uvicorn serves it, httpx calls it): health is a GET, a decision a POST
of the request, the policy and the task type's learned state, pickled. Pickle is safe here only
because the socket sits in a directory that only the serving user can open (`serve` makes it
0700); it is never reachable from another machine or user.
"""

from shadowswitch.engines.host.client import SharedEngine

__all__ = ["SharedEngine"]
