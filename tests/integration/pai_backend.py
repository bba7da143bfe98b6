"""A pydantic-ai agent behind its AG-UI adapter, the model a ``FunctionModel`` (no LLM key).

The model's answer is chosen by the last user prompt: ``weather`` calls the backend tool
``weather``; ``confirm`` calls the client's front-end tool ``confirm``; ``boom`` raises (the
adapter streams RUN_ERROR); ``think`` streams a thinking part; anything else is text. After
a tool returns, the model says what it returned.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaThinkingPart, DeltaToolCall, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route


async def _model(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[object]:
    parts = messages[-1].parts
    returned = [p for p in parts if isinstance(p, ToolReturnPart)]
    if returned:
        yield f"The tool said {returned[-1].model_response_str()}."
        return
    prompts = [p.content for p in parts if isinstance(p, UserPromptPart)]
    prompt = prompts[-1] if prompts else ""
    if prompt == "weather":
        yield {0: DeltaToolCall("weather", '{"city": "Paris"}', tool_call_id="pai_weather")}
    elif prompt == "confirm":
        yield {0: DeltaToolCall("confirm", '{"q": "ship it?"}', tool_call_id="pai_confirm")}
    elif prompt == "boom":
        raise RuntimeError("the model exploded")
    elif prompt == "think":
        yield {0: DeltaThinkingPart(content="let me think")}
    else:
        yield "Hello "
        yield "from pydantic-ai."


def pydantic_ai_app() -> Starlette:
    agent = Agent(FunctionModel(stream_function=_model))

    @agent.tool_plain
    def weather(city: str) -> str:
        return f"sunny in {city}"

    async def endpoint(request: Request) -> Response:
        return await AGUIAdapter.dispatch_request(request, agent=agent)

    return Starlette(routes=[Route("/agent", endpoint, methods=["POST"])])


CONFIRM_TOOL = {
    "confirm": {
        "description": "Ask the user to confirm",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
    }
}
