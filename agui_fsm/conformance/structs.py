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


BY_TYPE: dict[str, type] = {
    kind: cls for kind, rows in EVENTS.items() if (cls := _struct(kind, rows)) is not None
}
"""event type -> its struct, for every flat event type."""
KIND_OF: dict[type, str] = {cls: kind for kind, cls in BY_TYPE.items()}

_decode = msgspec.json.Decoder(Union[tuple(BY_TYPE.values())]).decode  # noqa: UP007
_encode = msgspec.json.encode
_Failed = (msgspec.DecodeError, msgspec.ValidationError)


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
