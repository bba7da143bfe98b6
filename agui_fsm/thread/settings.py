"""The options a :class:`~agui_fsm.runtime.ThreadRuntime` is built with, checked once:
what every run reads (profile, machines, queue policy, validation, what the input
carries)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from agui_fsm.errors import UsageError
from agui_fsm.machines.table import PROFILES, CompiledMachine
from agui_fsm.spec import CLIENT_BY_PROFILE

QUEUE_POLICIES = {"spec": ("queue", "refuse"), "reference": ("overlap", "refuse")}
VALIDATIONS = ("client", "all")


class RuntimeOptions(TypedDict, total=False):
    """The keyword options of :class:`~agui_fsm.runtime.ThreadRuntime`.

    ``show_thinking`` (default True): render reasoning. ``auto_cancel_pending_tool_calls``
    (default True): append and reload first resolve unanswered tool calls as cancelled.
    ``lenient``: record protocol violations as ``diagnostics`` instead of failing the run.
    ``validator``: a factory of incremental validators (default:
    :class:`agui_fsm.conformance.Validator` if installed; ``False`` validates nothing).
    ``tool_definitions``, ``system``, ``forwarded_props``: what each run input carries.
    ``thread_id`` (default: the agent's ``thread_id``, else ``"main"``). ``clock``
    (default ``time.time``): the seconds since the epoch, as the thread reads the time (an
    interrupt's expiry).

    ``validation``: which violations fail a (non-lenient) run: ``"client"`` (default)
    those ``@ag-ui/client``'s verifyEvents fails on too, the stricter rules of the
    conformance catalogue being recorded as diagnostics; ``"all"`` every error.

    ``profile``: ``"spec"`` (default: AG-UI 1.0, every invariant of
    :mod:`agui_fsm.invariants` holds) or ``"reference"`` (``@assistant-ui/react-ag-ui``
    0.0.58 exactly, its defects included). Where they differ, the difference is an edge
    of the machine tables limited to one profile (``specs/machines.json``).

    ``queue_policy``: what append, reload and resume do while a run streams (the run
    machine's ``request_run``): ``"queue"`` (spec default) waits until it has settled,
    ``"refuse"`` raises :class:`~agui_fsm.errors.UsageError`, ``"overlap"`` (reference
    default, and only there) starts a second run beside it. A resume that tool results
    make due never overlaps a run. ``protocol_version`` (e.g. ``"1.0"``) is sent as the
    input's ``protocolVersion``.
    """

    show_thinking: bool
    auto_cancel_pending_tool_calls: bool
    lenient: bool
    validator: Any
    tool_definitions: Mapping[str, Any] | None
    system: str | None
    forwarded_props: Mapping[str, Any] | None
    thread_id: str | None
    validation: str
    profile: str
    queue_policy: str | None
    protocol_version: str | None
    clock: Callable[[], float]


@dataclass(frozen=True)
class RuntimeSettings:
    """The checked options (see :class:`RuntimeOptions`)."""

    profile: str
    queue_policy: str
    validation: str
    thread_id: str
    new_id: Callable[[], str]
    show_thinking: bool = True
    auto_cancel_pending_tool_calls: bool = True
    lenient: bool = False
    validator_factory: Any = None
    tool_definitions: Mapping[str, Any] | None = None
    system: str | None = None
    forwarded_props: dict[str, Any] = field(default_factory=dict)
    protocol_version: str | None = None
    clock: Callable[[], float] = time.time

    @property
    def machines(self) -> Mapping[str, CompiledMachine]:
        return CLIENT_BY_PROFILE[self.profile]


def checked_tools(tools: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """The front-end tools a driver is given (``tools=``), each a function: a caller's
    :class:`~agui_fsm.errors.UsageError` otherwise."""
    for name, tool in (tools or {}).items():
        if not callable(tool):
            raise UsageError(
                f"tools[{name!r}] is not callable: tools= takes the functions the client "
                "runs; the definitions sent to the agent go in tool_definitions="
            )
    return tools or {}


def checked_settings(
    agent: Any, new_id: Callable[[], str], options: RuntimeOptions
) -> RuntimeSettings:
    """The settings, or :class:`UsageError` naming the option that is not available."""
    unknown = sorted(set(options) - set(RuntimeOptions.__annotations__))
    if unknown:
        raise TypeError(f"ThreadRuntime() got an unexpected keyword argument {unknown[0]!r}")
    given: dict[str, Any] = dict(options)
    profile = given.pop("profile", "spec")
    if profile not in PROFILES:
        raise UsageError(f"profile must be one of {', '.join(PROFILES)}, not {profile!r}")
    policy = given.pop("queue_policy", None) or QUEUE_POLICIES[profile][0]
    if policy not in QUEUE_POLICIES[profile]:
        raise UsageError(
            f"queue_policy {policy!r} is not available in the {profile} profile "
            f"(choose {' or '.join(QUEUE_POLICIES[profile])})"
        )
    validation = given.pop("validation", "client")
    if validation not in VALIDATIONS:
        raise UsageError(f"validation must be 'client' or 'all', not {validation!r}")
    thread_id = given.pop("thread_id", None) or getattr(agent, "thread_id", None) or "main"
    return RuntimeSettings(
        profile=profile,
        queue_policy=policy,
        validation=validation,
        thread_id=thread_id,
        new_id=new_id,
        validator_factory=given.pop("validator", None),
        forwarded_props=dict(given.pop("forwarded_props", None) or {}),
        **given,
    )
