"""POST /v1/chat/completions and GET /v1/models: the drop-in OpenAI surface."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from shadowswitch.api.deps import AppState, StateDep, require_agent
from shadowswitch.api.responses import ModelCard, ModelList
from shadowswitch.api.schemas import check_chat, openapi_body, parse_json
from shadowswitch.proxy.exchange import Incoming, Reply
from shadowswitch.request import ChatRequest, ChatView, validated

router = APIRouter()


@router.post("/v1/chat/completions", openapi_extra={"requestBody": openapi_body(ChatRequest)})
async def chat_completions(request: Request) -> Response:
    # The app's state and the key check called here, not as FastAPI dependencies: the same
    # order (the key before the body is read) without solving them on every request.
    state: AppState = request.app.state.shadowswitch
    caller = await require_agent(request, state)
    settings = state.settings
    data = parse_json(await request.body(), settings.max_body_bytes, settings.max_json_depth)
    body = validated(ChatRequest, data)
    check_chat(body)
    incoming = Incoming(
        request=ChatView.of(body, data),  # one typed view for every step; the body is forwarded as sent
        task_header=request.headers.get("x-shadowswitch-task"),
        session=request.headers.get("x-shadowswitch-session"),
        key=caller.key,
        provider_key=caller.provider_key,
    )
    reply = await state.pipeline.handle(incoming)
    return _response(reply)


def _response(reply: Reply) -> Response:
    headers = reply.headers
    if reply.stream is not None:
        headers["Cache-Control"] = "no-cache"
        return StreamingResponse(reply.stream, media_type="text/event-stream", headers=headers)
    return JSONResponse(reply.body, headers=headers)


@router.get("/v1/models")
async def list_models(state: StateDep) -> ModelList:
    return ModelList(data=_models(state))


def _models(state: AppState) -> list[ModelCard]:
    names: dict[str, str] = {}
    for policy in state.policies.policies.values():
        for name in (policy.match.model, policy.upstream.model):
            if name:
                names.setdefault(name, policy.task_type)
    if state.policies.defaults.upstream.model:
        names.setdefault(state.policies.defaults.upstream.model, "unclassified")
    return [ModelCard(id=name, owned_by=f"shadowswitch:{task}") for name, task in sorted(names.items())]
