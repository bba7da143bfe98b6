"""A pydantic-ai agent behind its AG-UI adapter for the probes, the model a ``FunctionModel``
(no LLM key, no network).

The model answers the last message as one following the probes' default words would: a
message naming ``agui_probe_echo`` gets a call of that client tool; one asking for approval
a call of the backend tool ``proceed``, declared ``requires_approval`` (the adapter ends the
run with an interrupt outcome for a client that declared AG-UI 1.0); a tool's return a text
saying what it returned; anything else a short text. The client's state is taken as
``StateDeps`` (the adapter's documented way).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import ModelMessage, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.ui import StateDeps
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agui_fsm.probes.catalogue import ECHO_TOOL


class ProbeState(BaseModel):
    model_config = ConfigDict(extra="allow")


async def _model(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
    parts = messages[-1].parts
    returned = [p for p in parts if isinstance(p, ToolReturnPart)]
    if returned:
        yield f"{returned[-1].tool_name} returned {returned[-1].model_response_str()}."
        return
    prompts = [p.content for p in parts if isinstance(p, UserPromptPart)]
    prompt = str(prompts[-1]) if prompts else ""
    if ECHO_TOOL in prompt:
        yield {0: DeltaToolCall(ECHO_TOOL, '{"x": 1}')}
    elif "approval" in prompt:
        yield {0: DeltaToolCall("proceed", "{}")}
    else:
        yield "Hello "
        yield "there."


def pydantic_ai_app() -> Starlette:
    agent = Agent(
        FunctionModel(stream_function=_model),
        deps_type=StateDeps[ProbeState],
        output_type=[str, DeferredToolRequests],
    )

    @agent.tool_plain(requires_approval=True)
    def proceed() -> str:
        return "done"

    async def endpoint(request: Request) -> Response:
        deps = StateDeps(ProbeState())
        return await AGUIAdapter.dispatch_request(request, agent=agent, deps=deps)

    return Starlette(routes=[Route("/agent", endpoint, methods=["POST"])])
