"""A LangGraph graph behind ag-ui-langgraph's FastAPI endpoint, the model a scripted chat
model (no LLM key, no network).

The model answers the last message as one following the probes' default words would: a
message naming ``agui_probe_echo`` gets a call of it (its arguments streamed in two chunks),
a tool message a text saying what it returned, anything else a short text. A message
asking for approval makes the graph ``interrupt()`` before the model answers; the resume
value is what the model then says it got. ``emit_interrupt_outcome=True`` asks the adapter
for AG-UI 1.0's RUN_FINISHED interrupt outcome (its default is a CUSTOM event).

A message asking for a subagent gets a call of ``task`` in the shape of deepagents'
delegation tool (``description``, ``subagent_type``; all its arguments in the opening
chunk), which a ToolNode named ``tools`` runs: the tool invokes a subagent graph, itself a
scripted model, whose runs carry ``lc_agent_name``. With ``subagent_visibility="attributed"``
the adapter reports it as AG-UI subagent events: SUBAGENT_STARTED under the ``task`` call,
the subagent's text tagged with its ``subagentRunId``, SUBAGENT_FINISHED.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import interrupt

from agui_fsm.probes.catalogue import ECHO_TOOL


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return " ".join(p.get("text", "") for p in content if isinstance(p, dict))


class ScriptedChatModel(BaseChatModel):
    """Answers from the last message; streams text in two chunks, arguments in two."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _chunks(self, messages: list[BaseMessage]) -> list[AIMessageChunk]:
        last = messages[-1]
        if isinstance(last, ToolMessage) and last.name == "task":
            return [AIMessageChunk(content=f"The subagent said: {last.content}")]
        if isinstance(last, ToolMessage):
            return [AIMessageChunk(content=f"{ECHO_TOOL} returned {last.content}.")]
        if "subagent" in _text(last):
            task = "Ask for approval." if "approval" in _text(last) else "Say hello."
            args = {"description": task, "subagent_type": "researcher"}
            call = {"name": "task", "args": json.dumps(args), "id": _call_id(), "index": 0}
            return [AIMessageChunk(content="", tool_call_chunks=[call])]
        if ECHO_TOOL in _text(last):
            first = {"name": ECHO_TOOL, "args": '{"x": ', "id": _call_id(), "index": 0}
            rest = {"name": None, "args": "1}", "id": None, "index": 0}
            return [
                AIMessageChunk(content="", tool_call_chunks=[first]),
                AIMessageChunk(content="", tool_call_chunks=[rest]),
            ]
        return [AIMessageChunk(content="Hello"), AIMessageChunk(content=" there.")]

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Any:
        merged = self._chunks(messages)
        message = merged[0]
        for chunk in merged[1:]:
            message = message + chunk
        reply = AIMessage(content=message.content, tool_calls=message.tool_calls, id=message.id)
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in self._chunks(messages):
            yield ChatGenerationChunk(message=chunk)


class SubagentChatModel(ScriptedChatModel):
    """The subagent's model: says hello, in two chunks."""

    def _chunks(self, messages: list[BaseMessage]) -> list[AIMessageChunk]:
        return [AIMessageChunk(content="Hello from"), AIMessageChunk(content=" the subagent.")]


def _subagent() -> Any:
    """The graph ``task`` hands its description to: one model node, named as deepagents'
    subagents are (``lc_agent_name``, which the adapter reads)."""
    model = SubagentChatModel()

    async def answer(state: MessagesState) -> dict[str, Any]:
        if "approval" in _text(state["messages"][-1]):
            answer = interrupt({"message": "May the subagent go on?"})
            return {"messages": [AIMessage(content=f"You answered {answer}.")]}
        return {"messages": [await model.ainvoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", answer)
    graph.add_edge(START, "model")
    graph.add_edge("model", END)
    return graph.compile().with_config(metadata={"lc_agent_name": "researcher"})


def _delegation() -> Any:
    subagent = _subagent()

    @tool
    async def task(description: str, subagent_type: str) -> str:
        """Hand a task to a subagent of the given type."""
        done = await subagent.ainvoke({"messages": [HumanMessage(content=description)]})
        return _text(done["messages"][-1])

    return task


def _call_id() -> str:
    return f"call_{uuid.uuid4().hex[:8]}"


def langgraph_app() -> FastAPI:
    model = ScriptedChatModel()

    async def chat(state: MessagesState) -> dict[str, Any]:
        last = state["messages"][-1]
        if last.type == "human" and "approval" in _text(last) and "subagent" not in _text(last):
            answer = interrupt({"message": "Do you approve?"})
            return {"messages": [AIMessage(content=f"You answered {answer}.")]}
        return {"messages": [await model.ainvoke(state["messages"])]}

    def delegates(state: MessagesState) -> str:
        calls = getattr(state["messages"][-1], "tool_calls", None) or []
        return "tools" if any(c["name"] == "task" for c in calls) else END

    graph = StateGraph(MessagesState)
    graph.add_node("chat", chat)
    graph.add_node("tools", ToolNode([_delegation()]))
    graph.add_edge(START, "chat")
    graph.add_conditional_edges("chat", delegates, ["tools", END])
    graph.add_edge("tools", "chat")
    agent = LangGraphAgent(
        name="probe",
        graph=graph.compile(checkpointer=InMemorySaver()),
        emit_interrupt_outcome=True,
        subagent_visibility="attributed",
    )
    app = FastAPI()
    add_langgraph_fastapi_endpoint(app, agent, "/agent")
    return app
