"""Arguments from a possibly truncated JSON text (a tool call imported mid-stream).

assistant-ui fills ``args`` of an imported tool call whose ``argsText`` is not
complete JSON by closing what is open: ``{"city":"Par`` reads as
``{"city": "Par"}``, an unfinished key or a dangling ``,``/``:`` is dropped, an
unfinished literal or number is completed or dropped. The result must be an
object (or array); anything else gives ``None``.
"""

from __future__ import annotations

import json
from typing import Any

from agui_fsm.jsonwire import check_text_depth

_LITERALS = ("true", "false", "null")


def _complete(text: str) -> str | None:
    """``text`` with its open strings, arrays and objects closed, or None if hopeless."""
    stack: list[str] = []  # "{" or "["
    out: list[str] = []
    # Per open container: index in ``out`` where its last *complete* member ended.
    safe: list[int] = []
    expecting_key: list[bool] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in " \t\r\n":
            out.append(ch)
            i += 1
            continue
        if ch in "{[":
            stack.append(ch)
            out.append(ch)
            safe.append(len(out))
            expecting_key.append(ch == "{")
            i += 1
            continue
        if ch in "}]":
            if not stack:
                return None
            stack.pop()
            safe.pop()
            expecting_key.pop()
            out.append(ch)
            i += 1
            if safe:
                safe[-1] = len(out)
            continue
        if ch == ",":
            out.append(ch)
            if expecting_key:
                expecting_key[-1] = stack[-1] == "{"
            i += 1
            continue
        if ch == ":":
            out.append(ch)
            if expecting_key:
                expecting_key[-1] = False
            i += 1
            continue
        if ch == '"':
            j = i + 1
            while j < n:
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == '"':
                    break
                j += 1
            if j >= n:
                # An unterminated string: a value is closed, a key is dropped.
                if stack and stack[-1] == "{" and expecting_key and expecting_key[-1]:
                    break
                body = text[i + 1 :]
                if body.endswith("\\"):
                    body = body[:-1]
                for cut in range(len(body), -1, -1):
                    candidate = '"' + body[:cut] + '"'
                    try:
                        json.loads(candidate)
                    except ValueError:
                        continue
                    out.append(candidate)
                    break
                if safe:
                    safe[-1] = len(out)
                i = n
                break
            token = text[i : j + 1]
            out.append(token)
            i = j + 1
            is_key = bool(stack) and stack[-1] == "{" and expecting_key and expecting_key[-1]
            if not is_key and safe:
                safe[-1] = len(out)
            continue
        # a number or a literal
        j = i
        while j < n and text[j] not in ',:{}[]" \t\r\n':
            j += 1
        token = text[i:j]
        if j >= n:
            for literal in _LITERALS:
                if literal.startswith(token):
                    token = literal
                    break
            else:
                while token and not _is_number(token):
                    token = token[:-1]
                if not token:
                    break
        out.append(token)
        i = j
        if safe:
            safe[-1] = len(out)
    if stack:
        # Drop a trailing unfinished member (a key without value, a dangling separator).
        del out[safe[-1] :]
        closing = "".join("}" if c == "{" else "]" for c in reversed(stack))
        while out and out[-1].strip() in ("", ","):
            if out[-1].strip() == ",":
                out.pop()
                break
            out.pop()
        return "".join(out) + closing
    return "".join(out)


def _is_number(token: str) -> bool:
    try:
        json.loads(token)
    except ValueError:
        return False
    return True


def parse_partial_object(text: str) -> Any:
    """The object (or array) ``text`` is, or is the beginning of; None when it is neither."""
    if text == "":
        return {}
    try:
        check_text_depth(text.encode("utf-8", "surrogatepass"))
    except ValueError:
        return None
    for candidate in (text, None):
        if candidate is None:
            try:
                candidate = _complete(text)
            except (IndexError, ValueError):
                return None
            if candidate is None:
                return None
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        return value if isinstance(value, (dict, list)) else None
    return None
