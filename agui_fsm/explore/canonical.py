"""Parts of a state the fingerprint holds by their data: a conformance validator's, after a
stream's events, the client's tool tracker's, and the active run's own record.

Each is read off the objects' data, not off a list of what matters: every attribute of
every object reached is in the key but for those left out below, so a field added to the
validator, the tracker or the run is in it without a change here (at worst it tells apart
states whose futures agree: more states, never fewer).

The validator (:func:`validator_state`): what it will say of the next events depends on it
(a step still active, a reasoning block still open, the ids it has seen, the arguments it
will compare a snapshot with), and the thread shows none of it. Left out:

* the context of the event being checked (``ctx``: its position, the findings it is
  collecting), which each event sets afresh, and the violations reported so far (a later
  ``finish`` returns only new ones);
* the number of events fed, but for whether it is zero (RUN-010 at the end of an empty
  input);
* code (bound methods, functions, classes, modules) and what is the same in every validator:
  the rules' levels, the compiled machines and their step plans;
* the length of streamed text: a streamed text message's pending deltas are taken as their
  concatenation, and a text of nothing but ``x`` as one ``x``, as the fingerprint abstracts
  the thread's text (the CRC and length already folded in are kept).

The tool tracker (:func:`tracker_state`): what it holds of each call (the name and argsText
it last saw, which a restarted call no longer shows), the turn a cancel ended, the calls it
discarded and its own flags. Left out: the thread it reads and what it last walked there
(that only spares it re-reading unchanged messages), the executions (observed), the
diagnostics it reported, and what it was built with (its callbacks, tools and profile). A
call in a terminal ``tool_execution`` state (submitted, skipped, discarded, cancelled,
unowned: a tool of another name) is written as its state alone: the table takes only edges
back to the same state from there (tested), and what they write (the argsText tracked, the
part-stream bookkeeping) decides nothing for a call that will not run again.

The active run's record in the core (:func:`run_state`): where its message goes and what
its start left to check (the parent it was started from, the ids the thread had then,
whether it may write into the last message), what ended it. Left out: the core it belongs
to and the pipeline and aggregator it owns (each in the fingerprint on its own terms), the
number of the operation streaming it, a name the core hands out in order (at a quiescent
point it is the operation that started the run, whatever its number), and the position of
the stream's last event, which only numbers the diagnostics (no observation shows them, and
no error a run shows carries it).
"""

from __future__ import annotations

import enum
import hashlib
import re
import types
from collections import deque
from collections.abc import Callable
from typing import Any

import orjson

from agui_fsm.conformance.agreement import StreamedText
from agui_fsm.machines.plans import BoundMachine, Driver
from agui_fsm.machines.plans import Step as PlanStep
from agui_fsm.machines.table import CompiledMachine, Lifecycle, Transition
from agui_fsm.machines.tool_execution import TERMINAL
from agui_fsm.thread.tool_parts import Entry

_VALIDATOR_LEAVES_OUT = frozenset({"_ctx", "ctx", "_violations", "_models", "levels"})
_VALIDATOR_REDUCES: dict[str, Callable[[Any], Any]] = {"_events": lambda fed: fed > 0}
_TRACKER_LEAVES_OUT = frozenset(
    {"view", "emit", "diagnose", "machine", "tools", "profile"}
    | {"executions", "diagnostics", "_thread"}
)
_RUN_LEAVES_OUT = frozenset({"rt", "reader", "aggregator", "operation", "index"})
_CODE = (
    types.FunctionType,
    types.MethodType,
    types.BuiltinFunctionType,
    types.BuiltinMethodType,
    type,
    types.ModuleType,
    CompiledMachine,
    BoundMachine,
    Driver,
    PlanStep,
    Transition,
)
_RUN_OF_X = re.compile(r"x+")


def validator_state(validator: Any) -> bytes:
    """A 16-byte digest of ``validator``'s state (see the module)."""
    data = _Encoder(_VALIDATOR_LEAVES_OUT, _VALIDATOR_REDUCES).encode(validator)
    return hashlib.blake2b(orjson.dumps(data), digest_size=16).digest()


def run_state(run: Any) -> Any:
    """The active run's own record in the core (its ``RunContext``) as JSON-able data (see
    the module)."""
    return _Encoder(_RUN_LEAVES_OUT).encode(run)


def tracker_state(tracker: Any) -> Any:
    """The tool tracker's state as JSON-able data (see the module): data, not a digest, so
    that the fingerprint renames the generated message ids in it."""
    return _Encoder(_TRACKER_LEAVES_OUT).encode(tracker)


class _Encoder:
    """The data an object reaches, as JSON-able lists; an object met again is written as a
    reference to where it was first met, so shared parts (the validator's owners and
    records, which several of its parts hold) are written once and cycles end. Each type
    is written by a writer chosen once for it (:func:`_writer_of`)."""

    def __init__(
        self, leaves_out: frozenset[str], reduces: dict[str, Callable[[Any], Any]] | None = None
    ) -> None:
        self.leaves_out = leaves_out
        self.reduces = reduces or {}  # attribute name -> what of its value is kept
        self.met: dict[int, int] = {}
        self.kept: list[Any] = []  # what was met, held so that no id is reused meanwhile

    def encode(self, value: Any) -> Any:
        cls = type(value)
        if cls in _SCALARS:
            return value
        writer = _WRITERS.get(cls) or _writer_of(cls)
        if writer is _code or writer is _enum:
            return writer(self, value)
        key = id(value)
        at = self.met.get(key)
        if at is not None:
            return ["@", at]
        self.met[key] = len(self.met)
        self.kept.append(value)
        return writer(self, value)

    def encode_object(self, value: Any) -> Any:
        """An object as its type's name and its attributes' data."""
        out: list[Any] = [type(value).__name__]
        leaves_out, reduces, encode = self.leaves_out, self.reduces, self.encode
        for name in _attributes(type(value), value):
            if name in leaves_out:
                continue
            item = getattr(value, name, _UNSET)
            if item is _UNSET:
                continue
            reduce = reduces.get(name)
            out.append([name, encode(item if reduce is None else reduce(item))])
        return out


_UNSET = object()
_SCALARS = frozenset({type(None), bool, int, float, str})


def _code(encoder: _Encoder, value: Any) -> Any:
    return None


def _enum(encoder: _Encoder, value: enum.Enum) -> Any:
    return value.value


def _dict(encoder: _Encoder, value: dict[Any, Any]) -> Any:
    encode = encoder.encode
    return ["dict", [[encode(k), encode(v)] for k, v in value.items()]]


def _sequence(encoder: _Encoder, value: Any) -> Any:
    encode = encoder.encode
    return [encode(item) for item in value]


def _set(encoder: _Encoder, value: Any) -> Any:
    encode = encoder.encode
    return ["set", sorted(orjson.dumps(encode(item)).decode() for item in value)]


def _bytes(encoder: _Encoder, value: bytes) -> Any:
    return ["bytes", value.hex()]


def _object(encoder: _Encoder, value: Any) -> Any:
    return encoder.encode_object(value)


def _lifecycle(encoder: _Encoder, value: Lifecycle) -> Any:
    return ["life", value.machine.name, value.instance, value.state]


def _streamed_text(encoder: _Encoder, value: StreamedText) -> Any:
    pending = "".join(value.parts)
    if _RUN_OF_X.fullmatch(pending):
        pending = "x"
    return ["text", value.role, value.crc, value.length, pending]


def _tool_entry(encoder: _Encoder, value: Entry) -> Any:
    state = value.life.state
    return ["call", state] if state in TERMINAL else encoder.encode_object(value)


Writer = Callable[[_Encoder, Any], Any]
_WRITERS: dict[type, Writer] = {
    Lifecycle: _lifecycle,
    StreamedText: _streamed_text,
    Entry: _tool_entry,
    dict: _dict,
    list: _sequence,
    tuple: _sequence,
    deque: _sequence,
    set: _set,
    frozenset: _set,
    bytes: _bytes,
}


def _writer_of(cls: type) -> Writer:
    """The writer of a type not met before (kept for the next time)."""
    if issubclass(cls, _CODE):
        writer: Writer = _code
    elif issubclass(cls, enum.Enum):
        writer = _enum
    elif issubclass(cls, dict):
        writer = _dict
    elif issubclass(cls, (list, tuple, deque)):
        writer = _sequence
    elif issubclass(cls, (set, frozenset)):
        writer = _set
    else:
        writer = _object
    _WRITERS[cls] = writer
    return writer


_ATTRIBUTES: dict[type, tuple[str, ...]] = {}


def _attributes(cls: type, value: Any) -> tuple[str, ...]:
    """The names of an object's data: its slots (every class's) and its ``__dict__``."""
    slots = _ATTRIBUTES.get(cls)
    if slots is None:
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            declared = klass.__dict__.get("__slots__", ())
            for name in (declared,) if isinstance(declared, str) else declared:
                if name not in ("__dict__", "__weakref__") and name not in names:
                    names.append(name)
        slots = _ATTRIBUTES[cls] = tuple(names)
    fields = getattr(value, "__dict__", None)
    return (*slots, *fields) if fields else slots
