"""Flat events decoded and shape-checked in one C call (msgspec), from the same shape table.

Every event type whose required fields are all scalars (strings, bounded integers,
booleans, enums) gets a ``msgspec`` Struct generated from :mod:`agui_fsm.event_shapes` (the
table read from the ag-ui-protocol models): its scalar fields under their camelCase wire
names, tagged by ``type``, unknown keys refused, no null accepted for any field. A field the
struct does not carry (``rawEvent``, ``metadata``, a nested model) is a class attribute
holding its default, so the handlers read a struct as they read a light event; an event
that gives such a field fails to decode and takes the general path.

A struct is therefore only ever built for a line that the general path (orjson, the fast
shape check of :mod:`~agui_fsm.conformance.shape`) accepts as the same light event with
nothing to say about its shape, with one exception the decoder cannot see: a duplicate key
(msgspec, like orjson, keeps the last). :func:`keys_unique` rules that out for a block of
lines at once (the Hypothesis test in ``tests/conformance/test_structs.py`` holds all of this
to the general path).

One nested event has a struct too: a STATE_DELTA of ``add`` and ``replace`` operations whose
values are JSON scalars (:data:`STATE_DELTA`), the commonest delta there is. Containers,
integers beyond 64 bits and the other operations fail to decode and take the general path.
It is not a flat event (not in :data:`BY_TYPE`) and its paths are not checked to be JSON
Pointers: only ``SharedState.take_in_place`` reads it, which writes only at plain pointers,
and the general path re-reads the text whenever that does not take it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

import msgspec

from agui_fsm.event_shapes import EVENTS

_SCALAR_TAGS = ("str", "int", "bool", "enum")


def _scalar(kind: list | None) -> Any:
    """The msgspec type of a scalar kind, or None when the kind is not a plain scalar."""
    if kind is None:
        return None
    tag = kind[0]
    if tag == "str":
        return str if len(kind) == 1 else None  # a pattern: left to the general path
    if tag == "int":
        return Annotated[int, msgspec.Meta(ge=kind[1], le=kind[2])]
    if tag == "bool":
        return bool
    if tag == "enum":
        return Literal[tuple(kind[1])]
    if tag == "oneof":
        alternatives = [_scalar(k) for k in kind[1]]
        if not alternatives or None in alternatives:
            return None
        return alternatives[0] if len(alternatives) == 1 else Union[tuple(alternatives)]  # noqa: UP007
    return None


def _or_default(name: str, default: Any) -> Any:
    def get(self: Any) -> Any:
        value = getattr(self, name)
        return default if value is None else value

    return get


def _struct(kind: str, rows: list) -> type | None:
    fields: list[tuple] = []
    rename: dict[str, str] = {}
    namespace: dict[str, Any] = {}
    for wire, attr, required, default, shape in rows:
        tp = _scalar(shape)
        if tp is None:
            if required:
                return None
            namespace[attr] = default  # absent from the struct: present means general path
            continue
        name = attr
        if not required and default is not None:
            # Absent and given-as-default must encode differently (keys_unique counts
            # keys), so the field holds None when absent and a property gives the default.
            name = attr + "_"
            namespace[attr] = property(_or_default(name, default))
        rename[name] = wire
        fields.append((name, tp) if required else (name, tp, None))
    fields.sort(key=lambda f: len(f) == 3)  # required fields first, as Python demands
    return msgspec.defstruct(
        "".join(part.capitalize() for part in kind.split("_")) + "Struct",
        fields,
        tag_field="type",
        tag=kind,
        rename=rename,
        forbid_unknown_fields=True,
        omit_defaults=True,
        namespace=namespace,
        gc=False,
    )


# A JSON scalar exactly as orjson (the general path) reads it: a 64-bit integer, a double,
# a string, a boolean or null. orjson reads a bigger integer as a double; msgspec would not.
_JSON_SCALAR = Union[  # noqa: UP007
    str, bool, None, Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)], float
]
_IN_PLACE_OPS = ("add", "replace")


def _op_field(wire: str, shape: list) -> Any:
    if shape == ["any"]:
        return _JSON_SCALAR
    if shape[0] == "str":
        # The JSON Pointer pattern is left out (it costs more than the rest of the decode):
        # the lane writes only at a path that starts with "/" and has no "~", a subset.
        return str
    raise ValueError(f"no struct field for a patch operation's {wire!r} of shape {shape}")


def _delta_struct() -> type:
    namespace: dict[str, Any] = {}
    delta_shape = None
    for wire, attr, required, default, shape in EVENTS["STATE_DELTA"]:
        if wire == "delta":
            delta_shape = shape
        elif required:
            raise ValueError(f"STATE_DELTA requires {wire!r}, which its struct does not carry")
        else:
            namespace[attr] = default
    assert delta_shape is not None and delta_shape[0] == "list" and delta_shape[1][0] == "union"
    tag_field, by_op = delta_shape[1][1], delta_shape[1][2]
    ops = []
    for op in _IN_PLACE_OPS:
        name, rows = by_op[op]
        fields = [(attr, _op_field(wire, shape)) for wire, attr, _, _, shape in rows]
        rename = {attr: wire for wire, attr, *_ in rows}
        ops.append(
            msgspec.defstruct(
                name + "Struct",
                fields,
                tag_field=tag_field,
                tag=op,
                rename=rename,
                forbid_unknown_fields=True,
                namespace={"op": op},
                gc=False,
            )
        )
    return msgspec.defstruct(
        "StateDeltaStruct",
        [("delta", list[Union[tuple(ops)]])],  # noqa: UP007
        tag_field="type",
        tag="STATE_DELTA",
        forbid_unknown_fields=True,
        namespace=namespace,
    )


BY_TYPE: dict[str, type] = {
    kind: cls for kind, rows in EVENTS.items() if (cls := _struct(kind, rows)) is not None
}
"""event type -> its struct, for every flat event type."""
KIND_OF: dict[type, str] = {cls: kind for kind, cls in BY_TYPE.items()}
STATE_DELTA: type = _delta_struct()
"""The struct of a STATE_DELTA of in-place operations with scalar values."""

_decode = msgspec.json.Decoder(Union[(*BY_TYPE.values(), STATE_DELTA)]).decode
_encode = msgspec.json.encode
# RecursionError: msgspec skips an unknown field's value by recursion, so a value nested
# some 100,000 levels deep exhausts the stack; the general path measures it (SCHEMA-009).
_Failed = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)


def decode(data: bytes) -> Any:
    """The struct of one JSON text, or None (not a flat event, or not clean): the caller then
    takes the general path. Duplicate keys are not ruled out here (see :func:`keys_unique`)."""
    try:
        return _decode(data)
    except _Failed:
        return None


def decode_all(texts: list[bytes]) -> list[Any]:
    """:func:`decode` of each text."""
    out: list[Any] = []
    append = out.append
    for text in texts:
        try:
            append(_decode(text))
        except _Failed:
            append(None)
    return out


def keys_unique(texts: list[bytes], decoded: list[Any]) -> bool:
    """Whether the ``texts`` that decoded into ``decoded`` (same order) repeat no key.

    A struct encodes one ``:`` per key it read plus those inside its strings, and a dropped
    duplicate takes its own ``:`` with it, so equal counts prove every key unique; an
    escaped colon (``\\u003a``) would be counted on one side only, so such a text fails."""
    raw = b"".join(texts)
    return b"\\u003" not in raw and raw.count(b":") == _encode(decoded).count(b":")


def decode_one(data: bytes) -> Any:
    """:func:`decode` with :func:`keys_unique` for one text."""
    try:
        ev = _decode(data)
    except _Failed:
        return None
    # keys_unique for one text, without the lists.
    if b"\\u003" in data or data.count(b":") != _encode(ev).count(b":"):
        return None
    return ev


def decode_text(text: bytes | str) -> Any:
    """:func:`decode_one` of a JSON text given as bytes or as str (UTF-8 encoded first, as
    the general path does; a str that cannot be is left to it)."""
    if type(text) is str:
        try:
            text = text.encode("utf-8")
        except UnicodeEncodeError:
            return None
    return decode_one(text)
