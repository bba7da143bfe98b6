"""A Strands agent behind ag-ui-strands' FastAPI endpoint, the model a scripted
``strands.models.Model`` streaming Bedrock-style events (no AWS credentials, no network).

The model answers the last message as one following the probes' default words would: a
message naming ``agui_probe_echo`` gets a call of that tool (the adapter registers the
input's ``tools`` as proxy tools the client runs), a tool result a text saying what it
returned, anything else a short text.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncGenerator
from typing import Any

from ag_ui_strands import StrandsAgent, add_strands_fastapi_endpoint
from fastapi import FastAPI
from strands import Agent
from strands.models import Model

from agui_fsm.probes.catalogue import ECHO_TOOL


def _last(messages: list[dict[str, Any]]) -> tuple[str, Any]:
    """("tool", the result's text) or ("text", the user's words) of the last message."""
    for block in reversed(messages[-1]["content"] if messages else []):
        if "toolResult" in block:
            content = block["toolResult"].get("content") or [{}]
            value = content[0].get("text", content[0].get("json"))
            return "tool", value
        if "text" in block:
            return "text", block["text"]
    return "text", ""


class ScriptedModel(Model):
    """Streams a reply chosen from the last message, as Bedrock's converse stream would."""

    def __init__(self) -> None:
        self.config: dict[str, Any] = {"model_id": "scripted"}

    def update_config(self, **model_config: Any) -> None:
        self.config.update(model_config)

    def get_config(self) -> Any:
        return self.config

    async def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        raise NotImplementedError("the scripted model has no structured output")
        yield

    async def stream(
        self, messages: Any, tool_specs: Any = None, system_prompt: Any = None, **kwargs: Any
    ) -> AsyncGenerator[Any, None]:
        kind, value = _last(messages)
        yield {"messageStart": {"role": "assistant"}}
        if kind == "text" and ECHO_TOOL in str(value):
            tool_use = {"toolUseId": f"tooluse_{uuid.uuid4().hex[:8]}", "name": ECHO_TOOL}
            yield {"contentBlockStart": {"start": {"toolUse": tool_use}}}
            for piece in ('{"x": ', "1}"):
                yield {"contentBlockDelta": {"delta": {"toolUse": {"input": piece}}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}
            return
        text = f"{ECHO_TOOL} returned {json.dumps(value)}." if kind == "tool" else "Hello there."
        yield {"contentBlockStart": {"start": {}}}
        for piece in (text[:5], text[5:]):
            yield {"contentBlockDelta": {"delta": {"text": piece}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}


def strands_app() -> FastAPI:
    agent = StrandsAgent(Agent(model=ScriptedModel(), callback_handler=None), name="probe")
    app = FastAPI()
    add_strands_fastapi_endpoint(app, agent, "/agent")
    return app
