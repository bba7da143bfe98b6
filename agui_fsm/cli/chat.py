"""``agui-fsm chat URL``: a terminal AG-UI client on ThreadRuntime + HttpAgent.

It streams the assistant's text, reasoning and tool calls as they arrive, asks for the
result of a front-end tool call the run leaves open and for the answer to an interrupt,
and goes on. ``--script FILE`` answers the prompts from a file (one answer per line,
``#`` comments and blank lines skipped), shows the stream on stderr and prints the
normalized thread (the replay output shape) on stdout at the end.

Exit status: 0 when the conversation ended (``/quit``, the end of the input or the script at
a "you>" prompt), 1 when a script ended while the agent still waited for a tool result or an
interrupt's answer (one line on stderr says which; the thread is printed), 2 a usage or
connection error, 130 interrupted.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

import click

from agui_fsm.cli.options import SECONDS, max_time_option
from agui_fsm.errors import AguiFsmError, UsageError
from agui_fsm.http import HttpAgent
from agui_fsm.replay.normalize import IdNormalizer, input_strings, normalize_output
from agui_fsm.replay.runner import thread_output
from agui_fsm.runtime import ThreadRuntime
from agui_fsm.thread.messages import OPTIMISTIC_PREFIX
from agui_fsm.trace import tracing


class StreamPrinter:
    """Prints what each thread update added: text and reasoning deltas, tool calls."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.shown: dict[tuple[str, int, str], int] = {}
        self.seen_before: set[str] = set()
        self.turn = 0
        self.turn_over = False

    def start_turn(self, runtime: ThreadRuntime) -> None:
        self.seen_before = {m.id for m in runtime.messages}
        self.turn += 1

    def __call__(self, runtime: ThreadRuntime) -> None:
        # Keyed by position: a placeholder is re-keyed to the server's id mid-stream.
        fresh = [m for m in runtime.messages if m.id not in self.seen_before]
        for position, message in enumerate(fresh):
            if message.role != "assistant":
                continue
            for index, part in enumerate(message.content):
                self._part(f"{self.turn}.{position}", index, part)
        self.out.flush()

    def _write(self, key: tuple[str, int, str], text: str, prefix: str = "") -> None:
        done = self.shown.get(key)
        if done is None:
            self.out.write(prefix)
            done = 0
        if len(text) > done:
            self.out.write(text[done:])
        self.shown[key] = len(text)

    def _part(self, message_id: str, index: int, part: dict[str, Any]) -> None:
        kind = part.get("type")
        if kind == "text":
            self._write((message_id, index, "text"), part.get("text", ""), "\nassistant> ")
        elif kind == "reasoning":
            self._write((message_id, index, "reasoning"), part.get("text", ""), "\n(thinking) ")
        elif kind == "tool-call" and ("result" in part or self.turn_over):
            call = part.get("toolCallId", "")
            if (call, 0, "call") not in self.shown:
                self.shown[(call, 0, "call")] = 1
                args = json.dumps(part.get("args", {}), ensure_ascii=False)
                self.out.write(f"\n[tool {part.get('toolName')}({args})]")
            if "result" in part and (call, 0, "result") not in self.shown:
                self.shown[(call, 0, "result")] = 1
                flag = " (error)" if part.get("isError") else ""
                result = json.dumps(part["result"], ensure_ascii=False)
                self.out.write(f" -> {result}{flag}")

    def finish_turn(self, runtime: ThreadRuntime) -> None:
        """Show the tool calls the turn left without a result (arguments are complete now)."""
        self.turn_over = True
        self(runtime)
        self.turn_over = False


def _parse_answer(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


class Chat:
    """One conversation: prompts come from ``ask`` (a terminal or a script)."""

    def __init__(
        self,
        runtime: ThreadRuntime,
        ask: Callable[[str], str | None],
        printer: StreamPrinter,
        after_turn: Callable[[], None] = lambda: None,
    ) -> None:
        self.runtime = runtime
        self.ask = ask
        self.printer = printer
        self.after_turn = after_turn
        self.errors: list[dict[str, Any]] = []
        self.turn = 0
        self.unanswered: str | None = None
        """What the agent still waited for when the answers ran out (a script ended)."""

    async def _act(self, operation: Any) -> None:
        self.printer.start_turn(self.runtime)
        try:
            await operation
        except AguiFsmError as exc:
            self.printer.finish_turn(self.runtime)
            self.errors.append(
                {"turn": self.turn, "error": type(exc).__name__, "message": str(exc)}
            )
            self.printer.out.write(f"\n[error] {type(exc).__name__}: {exc}")
        else:
            self.printer.finish_turn(self.runtime)
        self.printer.out.write("\n")
        self.printer.out.flush()
        self.after_turn()
        self.turn += 1

    async def _answer_open_questions(self) -> bool:
        """Ask for pending tool results, then interrupt answers; False when input ends."""
        rt = self.runtime
        while rt.pending_tool_calls or rt.pending_interrupts:
            if rt.pending_tool_calls:
                for call_id in list(rt.pending_tool_calls):
                    part = _tool_part(rt, call_id)
                    args = json.dumps(part.get("args", {}), ensure_ascii=False)
                    call = f"{part.get('toolName')}({args})"
                    answer = self.ask(f"result of {call} as JSON> ")
                    if answer is None:
                        self.unanswered = f"the result of {call} (a JSON value)"
                        return False
                    await self._act(rt.add_tool_result(call_id, _parse_answer(answer)))
                continue
            responses = []
            for interrupt in rt.pending_interrupts:
                what = interrupt.get("message") or interrupt.get("reason") or "an answer"
                answer = self.ask(f"the agent asks: {what}: a JSON answer, or 'cancel'> ")
                if answer is None:
                    self.unanswered = f"an answer to {what!r} (a JSON value, or 'cancel')"
                    return False
                if answer.strip() == "cancel":
                    responses.append({"interruptId": interrupt["id"], "status": "cancelled"})
                else:
                    responses.append(
                        {
                            "interruptId": interrupt["id"],
                            "status": "resolved",
                            "payload": _parse_answer(answer),
                        }
                    )
            await self._act(rt.submit_interrupt_responses(responses))
        return True

    async def run(self) -> None:
        while True:
            if not await self._answer_open_questions():
                return
            text = self.ask("you> ")
            if text is None or text.strip() in ("/quit", "/exit"):
                return
            if text.strip():
                await self._act(self.runtime.append(text))


def _tool_part(runtime: ThreadRuntime, call_id: str) -> dict[str, Any]:
    for message in reversed(runtime.messages):
        for part in message.content:
            if part.get("type") == "tool-call" and part.get("toolCallId") == call_id:
                return part
    return {}


def _script_answers(path: Path, echo: TextIO) -> Callable[[str], str | None]:
    lines: Iterator[str] = (
        line.rstrip("\n")
        for line in path.read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    )

    def ask(prompt: str) -> str | None:
        answer = next(lines, None)
        if answer is not None:
            echo.write(f"{prompt}{answer}\n")
        return answer

    return ask


def _terminal_ask(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None


class _KnownIds:
    """Passes the agent's events through; their strings are the server's ids, which the
    normalized output keeps (only ids the client made up become ``$n``)."""

    def __init__(self, agent: HttpAgent, rename: IdNormalizer) -> None:
        self.agent = agent
        self.rename = rename

    def run(self, run_input: Any) -> Any:
        return self._copy(self.agent.run(run_input))

    async def _copy(self, stream: Any) -> Any:
        async for event in stream:
            self.rename.known |= input_strings(event)
            yield event


def _trace_printer(recorded: Any, rename: IdNormalizer) -> Callable[[], None]:
    printed = 0

    def flush() -> None:
        nonlocal printed
        for taken in recorded.taken[printed:]:
            instance = rename(taken.instance.removeprefix(OPTIMISTIC_PREFIX))
            click.echo(
                f"{taken.machine}\t{instance}\t{taken.source}\t{taken.trigger}\t{taken.dest}",
                err=True,
            )
        printed = len(recorded.taken)

    return flush


@click.command()
@click.argument("url")
@click.option(
    "--script",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Answer every prompt from FILE (one line each) and print the normalized "
    "thread as JSON on stdout; the stream goes to stderr.",
)
@click.option("--trace", is_flag=True, help="Print the machine transitions of each turn on stderr.")
@click.option(
    "-H",
    "--header",
    "headers",
    multiple=True,
    metavar="NAME:VALUE",
    help="An HTTP header for every request; repeatable.",
)
@click.option(
    "--timeout",
    type=SECONDS,
    default=60.0,
    show_default=True,
    help="Seconds to wait for a connection or for the stream's next bytes.",
)
@max_time_option("each turn's exchange")
@click.option("--protocol-version", default=None, help="Declare this AG-UI version in the input.")
def chat(
    url: str,
    script: Path | None,
    trace: bool,
    headers: tuple[str, ...],
    timeout: float,
    max_time: float | None,
    protocol_version: str | None,
) -> None:
    """Chat with the AG-UI agent at URL through the reference runtime."""
    parsed: dict[str, str] = {}
    for header in headers:
        name, sep, value = header.partition(":")
        if not sep:
            raise click.UsageError(f"--header {header!r}: expected NAME:VALUE")
        parsed[name.strip()] = value.strip()
    rename = IdNormalizer(())
    try:
        http = HttpAgent(
            url,
            headers=parsed,
            timeout=timeout,
            max_time=max_time,
            protocol_version=protocol_version,
        )
    except UsageError as exc:
        raise click.BadParameter(str(exc), param_hint="URL") from None
    agent = _KnownIds(http, rename)
    show = sys.stderr if script is not None else sys.stdout
    printer = StreamPrinter(show)
    runtime = ThreadRuntime(agent, on_update=printer)
    ask = _script_answers(script, show) if script is not None else _terminal_ask
    with tracing() as recorded:
        after_turn = _trace_printer(recorded, rename) if trace else (lambda: None)
        session = Chat(runtime, ask, printer, after_turn)
        asyncio.run(session.run())
    if script is not None:
        output = thread_output(runtime, session.errors)
        json.dump(normalize_output(output, None, rename), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        if session.unanswered is not None:
            click.echo(
                f"agui-fsm chat: {script} ended while the agent waits for "
                f"{session.unanswered}: add a line for it (the thread printed stops there)",
                err=True,
            )
            sys.exit(1)
