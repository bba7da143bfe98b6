"""agui-fsm: how an AG-UI client keeps a chat thread consistent, as explicit state machines.

* :mod:`agui_fsm.machines` — the declared lifecycles (run, tool call, message
  status, interrupt, text, reasoning, step); :mod:`agui_fsm.spec` checks and
  exports them.
* :mod:`agui_fsm.runtime` — the reference thread runtime and run aggregator.
* :mod:`agui_fsm.conformance` — the event-stream validator.
* :mod:`agui_fsm.replay` — scenario replay for conformance vectors.
* :mod:`agui_fsm.http` — :class:`HttpAgent`, an AG-UI endpoint as the runtime's agent.
* :mod:`agui_fsm.probes` — :func:`probe`, a live backend through a battery of conversations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agui_fsm.conformance import Report, Validator, validate
    from agui_fsm.http import HttpAgent
    from agui_fsm.probes import aprobe, probe
    from agui_fsm.runtime import ThreadRuntime

__version__ = "0.1.0"
__all__ = ["HttpAgent", "Report", "ThreadRuntime", "Validator", "aprobe", "probe", "validate"]


def __getattr__(name: str) -> Any:
    # Imported on first use, so that `import agui_fsm.<module>` (every CLI command) does not
    # load the validator, the runtime, nor httpx.
    if name == "HttpAgent":
        from agui_fsm.http import HttpAgent

        return HttpAgent
    if name == "ThreadRuntime":
        from agui_fsm.runtime import ThreadRuntime

        return ThreadRuntime
    if name in ("probe", "aprobe"):
        import agui_fsm.probes

        return getattr(agui_fsm.probes, name)
    if name in __all__:
        import agui_fsm.conformance

        return getattr(agui_fsm.conformance, name)
    raise AttributeError(f"module 'agui_fsm' has no attribute {name!r}")


def __dir__() -> list[str]:
    # What completion in a REPL or an IDE offers: the lazy exports, the module's dunders and
    # its submodules once imported; not the names this file imports for its annotations.
    own = (n for n in globals() if n not in ("Any", "TYPE_CHECKING", "annotations"))
    return sorted({*own, *__all__})
