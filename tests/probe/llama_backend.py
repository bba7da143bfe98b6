"""llama-index's AG-UI workflow router (llama-index-protocols-ag-ui) on FastAPI, the LLM
llama-index's own ``MockFunctionCallingLLM`` with a scripted response generator (no LLM
key, no network).

The generator answers the last message as a model following the probes' default words
would: a message naming ``agui_probe_echo`` gets a call of that tool (which the router
takes for a client tool, as it is declared in the input's ``tools``), a tool message a
text saying what it returned, anything else a short text. The router serves ``POST /run``.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI
from llama_index.core.base.llms.types import ToolCallBlock
from llama_index.core.llms import ChatMessage, MessageRole
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.protocols.ag_ui.router import get_ag_ui_workflow_router

from agui_fsm.probes.catalogue import ECHO_TOOL


def _reply(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
    last = messages[-1]
    if last.role == MessageRole.TOOL:
        return ChatMessage(role="assistant", content=f"{ECHO_TOOL} returned {last.content}.")
    if ECHO_TOOL in (last.content or ""):
        call = ToolCallBlock(
            tool_call_id=f"call_{uuid.uuid4().hex[:8]}", tool_name=ECHO_TOOL, tool_kwargs={"x": 1}
        )
        return ChatMessage(role="assistant", blocks=[call])
    return ChatMessage(role="assistant", content="Hello there.")


def llama_index_app() -> FastAPI:
    llm = MockFunctionCallingLLM(response_generator=_reply)
    app = FastAPI()
    app.include_router(get_ag_ui_workflow_router(llm=llm))
    return app
