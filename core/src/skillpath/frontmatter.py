"""The ``SKILL.md`` frontmatter parser.

``---`` fenced YAML at the very start of the file, parsed with pyyaml's C loader
when present. The parser never raises into its caller: anything it cannot read
becomes a :class:`~skillpath.model.Diagnostic` with path and line, and the best
data it could recover.

Where the body begins (the fence, a BOM, CRLF) is decided in one place,
:mod:`skillpath._skillfile`, which the records' lazy body uses too; its names
(:func:`split_frontmatter`, :func:`strip_frontmatter`, :func:`read_body`,
:data:`MAX_FILE_BYTES`) are public here.
"""

from __future__ import annotations

import errno
import os
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from skillpath._skillfile import MAX_FILE_BYTES, read_body, split_frontmatter, strip_frontmatter
from skillpath._skillfile import find_fence as _find_fence
from skillpath._yamlfast import _shared, parse_simple
from skillpath.model import Diagnostic, Frontmatter
from skillpath.safety import open_regular

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_FRONTMATTER_BYTES",
    "ParsedFrontmatter",
    "coerce_bool",
    "parse_frontmatter",
    "read_body",
    "read_head",
    "split_frontmatter",
    "strip_frontmatter",
    "to_frontmatter",
]

#: Frontmatter larger than this is refused (a diagnostic, the skill is skipped).
MAX_FRONTMATTER_BYTES = 256 * 1024
#: Largest number of YAML nodes accepted after alias expansion (YAML bombs).
MAX_NODES = 20_000
#: Deepest nesting accepted.
MAX_DEPTH = 64

_HEAD_CHUNK = 8192
_FENCE_RE = re.compile(rb"^---[ \t]*\r?$", re.MULTILINE)
_BOOL_TRUE = {"true", "yes", "on", "1", "y"}
_BOOL_FALSE = {"false", "no", "off", "0", "n", ""}
_LINE_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$")


@attrs.frozen
class ParsedFrontmatter:
    """Result of :func:`parse_frontmatter`.

    ``data`` is the JSON-safe mapping (empty when there was no frontmatter),
    ``body`` the text after the closing fence (``None`` when only the head of
    the file was given and the body was not part of it), ``body_line`` the
    1-based line where the body starts, ``has_frontmatter`` whether a fenced
    block was present.

    How lenient the parse had to be: ``repaired`` is true when the YAML loaded
    only after plain values holding ``": "`` were quoted (strict parsers reject
    such a file; a ``frontmatter-repaired`` info diagnostic names each line),
    ``recovered`` when it did not load at all and ``key: value`` lines were
    recovered one by one (a ``frontmatter-yaml-error`` warning), ``unclosed``
    when a ``---`` block was opened and never closed (the whole file is then
    the body, and nothing in it may stand in for a description).
    """

    data: Mapping[str, Any]
    body: str | None
    body_line: int
    has_frontmatter: bool
    diagnostics: tuple[Diagnostic, ...] = ()
    repaired: bool = False
    recovered: bool = False
    unclosed: bool = False


def _decode(raw: bytes, path: Path | None, diags: list[Diagnostic]) -> str:
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        diags.append(
            Diagnostic(
                "warning",
                "not-utf8",
                f"file is not valid UTF-8 (byte {exc.start}); undecodable bytes replaced",
                path,
            )
        )
        return raw.decode("utf-8", errors="replace")


def _json_safe(value: Any, budget: list[int], depth: int = 0) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooBig("frontmatter expands to too many values (YAML alias bomb?)")
    if depth > MAX_DEPTH:
        raise _TooBig("frontmatter is nested too deeply")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return str(value)
        return value
    dt = sys.modules.get("datetime")  # only pyyaml makes these, and imports it first
    if dt is not None and isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v, budget, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_json_safe(v, budget, depth + 1) for v in value]
    return str(value)


class _TooBig(ValueError):
    pass


_LOADER: Any = None


def _loader() -> Any:
    """The safe loader class, built on first use.

    pyyaml (its C loader when available) is imported only when a frontmatter
    block falls outside :func:`skillpath._yamlfast.parse_simple`'s subset, so
    listings served from the fast path or the discovery index never import it.
    """
    global _LOADER
    if _LOADER is None:
        import yaml

        base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

        class _StrDateLoader(base):  # type: ignore[misc]
            """Safe loader that keeps timestamps as strings and bounds ``<<`` merges.

            PyYAML before 6.0.4 copies every merged pair without de-duplication, so
            nested ``<<: [*a, *a, ...]`` merges grow exponentially (a few hundred bytes
            take minutes and gigabytes). Merged keys are de-duplicated here whatever
            the installed PyYAML, and a mapping that still grows past ``MAX_NODES``
            pairs is refused.
            """

            def flatten_mapping(self, node: Any) -> None:
                """Resolve ``<<`` merge keys of ``node`` in place, de-duplicated and bounded."""
                merge: list[Any] = []
                seen: set[int] = set()
                index = 0
                while index < len(node.value):
                    key_node, value_node = node.value[index]
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        del node.value[index]
                        if isinstance(value_node, yaml.MappingNode):
                            subnodes = [value_node]
                        elif isinstance(value_node, yaml.SequenceNode):
                            subnodes = list(value_node.value)
                        else:
                            raise yaml.constructor.ConstructorError(
                                "while constructing a mapping",
                                node.start_mark,
                                f"expected a mapping or list of mappings for merging, "
                                f"but found {value_node.id}",
                                value_node.start_mark,
                            )
                        for sub in subnodes:
                            if not isinstance(sub, yaml.MappingNode):
                                raise yaml.constructor.ConstructorError(
                                    "while constructing a mapping",
                                    node.start_mark,
                                    f"expected a mapping for merging, but found {sub.id}",
                                    sub.start_mark,
                                )
                            self.flatten_mapping(sub)
                            for pair in sub.value:
                                if id(pair[0].value) not in seen:
                                    seen.add(id(pair[0].value))
                                    merge.append(pair)
                        if len(merge) > MAX_NODES:
                            raise _TooBig("frontmatter merges too many keys (YAML merge bomb?)")
                    elif key_node.tag == "tag:yaml.org,2002:value":
                        key_node.tag = "tag:yaml.org,2002:str"
                        index += 1
                    else:
                        index += 1
                if merge:
                    node.value = merge + node.value

        _StrDateLoader.add_constructor(
            "tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node)
        )

        _LOADER = _StrDateLoader
    return _LOADER


def _yaml_load(text: str) -> Any:
    import yaml

    return yaml.load(text, Loader=_loader())  # noqa: S506 - a safe loader subclass


def _repair_colons(text: str) -> tuple[str, list[tuple[int, str]]]:
    """Quote plain top-level scalars that contain ``": "`` (``description: Use when: x``).

    Returns the repaired text and ``(line index, key)`` of every line changed.
    """
    out = []
    changed: list[tuple[int, str]] = []
    for i, line in enumerate(text.split("\n")):
        m = _LINE_RE.match(line)
        if m and m.group(2):
            value = m.group(2)
            if ": " in value and value[0] not in "\"'[{|>&*!#" and not value.endswith(":"):
                quoted = "'" + value.replace("'", "''") + "'"
                line = f"{m.group(1)}: {quoted}"
                changed.append((i, m.group(1)))
        out.append(line)
    return "\n".join(out), changed


def _is_fragment(value: str) -> bool:
    """Whether a line-recovered value is clearly a piece of broken YAML.

    A flow collection that is not closed on its line (``[unclosed``, ``{a: 1``)
    or a run of empty mapping values (``a: : :``) is not text anyone meant a
    model to read.
    """
    if ": :" in value:
        return True
    if value[:1] in ("[", "{"):
        return value.count("[") != value.count("]") or value.count("{") != value.count("}")
    return False


def _line_recover(text: str) -> tuple[dict[str, Any], list[str]]:
    """Recover top-level ``key: value`` pairs line by line.

    Returns the pairs and the keys whose value is a fragment of broken YAML
    (see :func:`_is_fragment`), kept as the text written (``description:
    [unclosed`` gives ``[unclosed``, as other agents read it) and named in the
    warning.
    """
    data: dict[str, Any] = {}
    fragments: list[str] = []
    for line in text.split("\n"):
        m = _LINE_RE.match(line)
        if not m:
            continue
        value = (m.group(2) or "").strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        elif value and _is_fragment(value) and m.group(1) not in fragments:
            fragments.append(m.group(1))
        data[m.group(1)] = value
    return data, fragments


def parse_frontmatter(content: bytes | str, path: Path | None = None) -> ParsedFrontmatter:
    """Parse a ``SKILL.md`` (whole, or its head) into frontmatter data and body.

    Accepts bytes or text; tolerates a UTF-8 BOM and CRLF. Values are kept
    JSON-safe (dates and times stay strings). A value such as
    ``description: Use when: x`` is repaired and loaded (an info diagnostic
    ``frontmatter-repaired`` per repaired line: strict YAML parsers reject it);
    YAML that still does not parse falls back to line-by-line ``key: value``
    recovery with a warning carrying path and line; a value that is a fragment
    of broken YAML (``[unclosed``) is kept as the text written and named in the
    warning. Never raises.
    """
    return ParsedFrontmatter(*_parse_frontmatter(content, path))


#: :class:`ParsedFrontmatter`'s fields as a tuple, in order (what the scanner
#: reads, without building the record for every file).
_Parsed = tuple[Mapping[str, Any], str | None, int, bool, tuple[Diagnostic, ...], bool, bool, bool]


def _parse_frontmatter(content: bytes | str, path: Path | None) -> _Parsed:
    """:func:`parse_frontmatter`, as the tuple of the fields of its result."""
    data, body, line, fenced, diags, repaired, recovered, unclosed = _parse_parts(content, path)
    if type(body) is bytes:
        body = body.decode("ascii")
    return data, body, line, fenced, diags, repaired, recovered, unclosed  # type: ignore[return-value]


def _parse_parts(
    content: bytes | str, path: Path | None
) -> tuple[
    Mapping[str, Any], str | bytes | None, int, bool, tuple[Diagnostic, ...], bool, bool, bool
]:
    """:func:`_parse_frontmatter` with the body of a fenced file left undecoded when it
    is ASCII (``bytes``: decoding cannot fail, so there is no diagnostic to give;
    the scan decodes it only when a missing description needs its first paragraph)."""
    diags: list[Diagnostic] = []
    try:
        raw = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content
        if raw.find(b"\x00", 0, _HEAD_CHUNK) >= 0:
            diags.append(Diagnostic("error", "binary-file", "file looks binary (NUL bytes)", path))
            return {}, "", 1, False, tuple(diags), False, False, False
        fm_raw, rest, body_line = split_frontmatter(raw)
        if fm_raw is None:
            stripped = raw.lstrip(b"\xef\xbb\xbf")
            if stripped.startswith(b"---"):
                diags.append(
                    Diagnostic(
                        "warning",
                        "frontmatter-unclosed",
                        "frontmatter opened with '---' but never closed; treated as body "
                        "(no name or description read from it)",
                        path,
                        1,
                    )
                )
                body = _decode(rest, path, diags)
                return {}, body, 1, False, tuple(diags), False, False, True
            return {}, _decode(rest, path, diags), 1, False, tuple(diags), False, False, False
        if len(fm_raw) > MAX_FRONTMATTER_BYTES:
            diags.append(
                Diagnostic(
                    "error",
                    "frontmatter-too-large",
                    f"frontmatter is {len(fm_raw)} bytes (limit {MAX_FRONTMATTER_BYTES})",
                    path,
                    2,
                )
            )
            return {}, None, body_line, True, tuple(diags), False, False, False
        text = _decode(fm_raw, path, diags).replace("\r\n", "\n")
        mode: list[str] = []
        data = _load_mapping(text, path, diags, mode)
        kept: str | bytes = rest if rest.isascii() else _decode(rest, path, diags)
        return (
            data,
            kept,
            body_line,
            True,
            tuple(diags),
            "repaired" in mode,
            "recovered" in mode,
            False,
        )
    except Exception as exc:  # noqa: BLE001 - the parser must never raise
        diags.append(Diagnostic("error", "frontmatter-invalid", f"could not parse: {exc!r}", path))
        return {}, None, 1, False, tuple(diags), False, False, False


def _load_mapping(
    text: str, path: Path | None, diags: list[Diagnostic], mode: list[str]
) -> dict[str, Any]:
    """The frontmatter mapping of ``text``; ``mode`` gets ``repaired`` or
    ``recovered`` when a lenient path was needed."""
    simple = parse_simple(text)
    if simple:  # the common case: exactly what pyyaml would return
        return simple
    if not text.strip():
        return {}
    if simple is not None:
        return simple
    repaired = _plainly_repaired(text)
    if repaired is not None:
        # ``description: Use when: …``: what the repair below makes of it, without
        # pyyaml's failed first attempt and second one
        _note_repaired(repaired[1], path, diags, mode)
        return repaired[0]
    import yaml

    error: Exception | None = None
    loaded: Any = None
    for attempt in (text, None):
        repaired_lines: list[tuple[int, str]] = []
        if attempt is None:
            candidate, repaired_lines = _repair_colons(text)
        else:
            candidate = attempt
        if attempt is None and candidate == text:
            break
        try:
            loaded = _yaml_load(candidate)
            error = None
            if repaired_lines:
                _note_repaired(repaired_lines, path, diags, mode)
            break
        except RecursionError:
            error = _TooBig("frontmatter is nested too deeply")
            break
        # kept without its traceback: the traceback holds this frame, which holds
        # ``error`` — a cycle that would keep every caller's frame (the whole
        # load, when the cyclic collector is paused) alive until exit
        except _TooBig as exc:
            error = exc.with_traceback(None)
            break
        except yaml.YAMLError as exc:
            error = error or exc.with_traceback(None)
    if error is None:
        if loaded is None:
            return {}
        if not isinstance(loaded, Mapping):
            diags.append(
                Diagnostic(
                    "warning",
                    "frontmatter-not-mapping",
                    f"frontmatter is a {type(loaded).__name__}, not a mapping; ignored",
                    path,
                    2,
                )
            )
            return {}
        try:
            return _json_safe(loaded, [MAX_NODES])  # type: ignore[no-any-return]
        except (_TooBig, RecursionError) as exc:
            diags.append(Diagnostic("error", "frontmatter-too-complex", str(exc), path, 2))
            return {}
    if isinstance(error, _TooBig):
        diags.append(Diagnostic("error", "frontmatter-too-complex", str(error), path, 2))
        return {}
    line = None
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    if mark is not None:
        line = mark.line + 2  # +1 for 1-based, +1 for the opening fence
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    recovered, fragments = _line_recover(text)
    mode.append("recovered")
    message = f"YAML error ({problem}); recovered {len(recovered)} key(s) line by line"
    if fragments:
        message += (
            f"; kept the value of {', '.join(fragments)} as the text written "
            "(it does not parse as YAML: quote it)"
        )
    diags.append(Diagnostic("warning", "frontmatter-yaml-error", message, path, line))
    return recovered


def _plainly_repaired(text: str) -> tuple[dict[str, Any], list[tuple[int, str]]] | None:
    """What :func:`_load_mapping` returns for ``text`` through :func:`_repair_colons`
    (the mapping and the lines repaired), when the repaired text is in
    :func:`~skillpath._yamlfast.parse_simple`'s subset; ``None`` otherwise.

    Each line the repair quotes is then a top-level ``key: value`` line of the
    mapping, and its plain value holds ``": "`` (and no ``#``, which could start a
    comment before it): pyyaml refuses ``text`` there, so the loader would load
    the repaired text, whose result is what ``parse_simple`` returns.
    """
    candidate, repaired = _repair_colons(text)
    if not repaired:
        return None
    lines = text.split("\n")
    if any("#" in lines[index] for index, _key in repaired):
        return None
    data = parse_simple(candidate)
    return None if data is None else (data, repaired)


def _note_repaired(
    repaired: list[tuple[int, str]], path: Path | None, diags: list[Diagnostic], mode: list[str]
) -> None:
    """The ``frontmatter-repaired`` diagnostics of the lines :func:`_repair_colons` quoted."""
    mode.append("repaired")
    for index, key in repaired:
        diags.append(
            Diagnostic(
                "info",
                "frontmatter-repaired",
                f"the value of {key!r} holds an unquoted ': '; read as one "
                "string, but strict YAML parsers (the skills-ref validator, "
                "Codex) reject the file: quote the value",
                path,
                index + 2,  # +1 for 1-based, +1 for the opening fence
            )
        )


def coerce_bool(value: Any, default: bool = False) -> bool | None:
    """Read a boolean the way skill authors write it.

    Accepts ``true/false/yes/no/on/off/1/0`` in any case and real booleans and
    integers; returns ``None`` for anything else (the caller reports it).
    """
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        v = value.strip().lower()
        if v in _BOOL_TRUE:
            return True
        if v in _BOOL_FALSE:
            return False
    return None


_KEY_ALIASES = {
    "alwaysapply": "always_apply",
    "disablemodelinvocation": "disable_model_invocation",
    "userinvocable": "user_invocable",
    "userinvokable": "user_invocable",
    "allowedtools": "allowed_tools",
    "disallowedtools": "disallowed_tools",
    "argumenthint": "argument_hint",
    "whentouse": "when_to_use",
}
_BOOL_FIELDS = ("always_apply", "hide", "disable_model_invocation", "user_invocable")
_STR_FIELDS = (
    "name",
    "description",
    "argument_hint",
    "when_to_use",
    "model",
    "context",
    "agent",
    "effort",
    "shell",
    "license",
    "compatibility",
)
_LIST_FIELDS = (
    ("globs", False),
    ("paths", False),
    ("allowed_tools", True),
    ("disallowed_tools", True),
    ("arguments", True),
)
_FIELDS = {f.name for f in attrs.fields(Frontmatter)} - {"extra", "raw"}
_BOOL, _STR, _LIST, _MAPPING = range(4)
_KIND = {
    **dict.fromkeys(_BOOL_FIELDS, _BOOL),
    **dict.fromkeys(_STR_FIELDS, _STR),
    **{f: _LIST for f, _spaces in _LIST_FIELDS},
    "hooks": _MAPPING,
    "metadata": _MAPPING,
}
#: The order fields are checked in (and their diagnostics given).
_RANK = {name: i for i, name in enumerate(_KIND)}
_SPACE_LISTS = frozenset(f for f, spaces in _LIST_FIELDS if spaces)
assert _KIND.keys() == _FIELDS


_NORMALIZED: dict[str, str] = {}


def normalize_key(key: str) -> str:
    """``disable-model-invocation``/``disableModelInvocation`` → ``disable_model_invocation``."""
    norm = _NORMALIZED.get(key)
    if norm is None:
        compact = key.replace("-", "").replace("_", "").lower()
        norm = _KEY_ALIASES.get(compact) or key.replace("-", "_").lower()
        if len(_NORMALIZED) < 4096:
            _NORMALIZED[key] = norm
    return norm


_SPLIT_SPACES = re.compile(r"[,\s]+")


def _hint_item(item: Any) -> str:
    """One item of a list-valued ``argument-hint``, as the text between brackets."""
    if isinstance(item, list):
        return " ".join(_hint_item(i) for i in item)
    return "" if item is None else str(item).strip()


def _as_list(value: Any, *, split_spaces: bool = False) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        parts = _SPLIT_SPACES.split(value) if split_spaces else value.split(",")
        # the items (tool names) recur across a corpus: one interned string each
        return tuple(_shared(p.strip()) for p in parts if p.strip())
    if isinstance(value, (list, tuple)):
        return tuple(str(v).strip() for v in value if v is not None and str(v).strip())
    return (str(value),)


#: What :func:`frontmatter_values` does with the keys of a mapping, by the keys in
#: their order (a handful of key sets recur across a corpus): see :func:`_plan`.
_PLANS: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[tuple[str, str, int], ...]]] = {}


def _plan(
    keys: tuple[str, ...],
) -> tuple[tuple[str, ...], tuple[tuple[str, str, int], ...]]:
    """``(extra keys, fields)`` for a mapping with ``keys``: the keys that are no field,
    in their order, and ``(field, key, kind)`` for each field present, in the fixed
    order (booleans, strings, lists, hooks, metadata) that decides the order of the
    diagnostics; ``key`` is the field's last spelling in the file (the one whose
    value stands)."""
    extra: list[str] = []
    written: dict[str, str] = {}  # field -> the key as the file spells it
    for key in keys:
        norm = _NORMALIZED.get(key) or normalize_key(key)
        if norm not in _FIELDS:
            extra.append(key)
            continue
        written[norm] = key
    fields = tuple(
        (fname, written[fname], _KIND[fname]) for fname in sorted(written, key=_RANK.__getitem__)
    )
    plan = (tuple(extra), fields)
    if len(_PLANS) < 1024 and len(keys) <= 32 and sum(map(len, keys)) <= 1024:
        _PLANS[keys] = plan  # bounded: a hostile corpus of odd keys keeps little
    return plan


def to_frontmatter(
    data: Mapping[str, Any], path: Path | None = None
) -> tuple[Frontmatter, list[Diagnostic]]:
    """Turn parsed frontmatter data into the typed :class:`Frontmatter`.

    Bad values (a list where a string belongs, ``hide: maybe``) are reported and
    replaced by the field's default; unknown keys are kept in ``extra``.
    """
    values, diags = frontmatter_values(data, path)
    return Frontmatter(**values), diags


def frontmatter_values(
    data: Mapping[str, Any], path: Path | None = None
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The keyword arguments :func:`to_frontmatter` passes to :class:`Frontmatter`.

    Plain data (strings, booleans, tuples, dicts), so the discovery index can
    store it and rebuild the record without redoing the checks.
    """
    diags: list[Diagnostic] = []
    keys = tuple(data)
    plan = _PLANS.get(keys)
    if plan is None:
        plan = _plan(keys)
    extra_keys, fields = plan
    extra = {key: data[key] for key in extra_keys} if extra_keys else {}
    out: dict[str, Any] = {}
    for fname, key, kind in fields:
        v = data[key]
        if kind == _BOOL:
            default = fname == "user_invocable"
            b = coerce_bool(v, default)
            if b is None:
                diags.append(
                    Diagnostic(
                        "warning",
                        "frontmatter-bad-value",
                        f"'{key}' must be a boolean, got {v!r}; using {default}",
                        path,
                    )
                )
                b = default
            out[fname] = b
        elif kind == _STR:
            if v is None:
                continue
            if fname == "argument_hint" and isinstance(v, list):
                # `argument-hint: [issue]` (Claude Code's own spelling) is a YAML
                # flow list: each item is one bracketed placeholder again
                out[fname] = " ".join(f"[{_hint_item(item)}]" for item in v)
                continue
            if isinstance(v, (dict, list)):
                diags.append(
                    Diagnostic(
                        "warning",
                        "frontmatter-bad-value",
                        f"'{key}' must be a string, got a {type(v).__name__}; ignored",
                        path,
                    )
                )
                continue
            out[fname] = v.strip() if type(v) is str else str(v).strip()
        elif kind == _LIST:
            out[fname] = _as_list(v, split_spaces=fname in _SPACE_LISTS)
        elif v is not None:  # hooks, metadata
            if isinstance(v, Mapping):
                out[fname] = v
            else:
                diags.append(
                    Diagnostic(
                        "warning",
                        "frontmatter-bad-value",
                        f"'{key}' must be a mapping",
                        path,
                    )
                )
    out["extra"] = extra
    out["raw"] = dict(data)
    return out, diags


_NOFOLLOW_FLAG = getattr(os, "O_NOFOLLOW", 0)


def _open_regular_stat(path: Path | str, flags: int = 0) -> tuple[int, os.stat_result]:
    """:func:`_open_regular` that also returns the ``fstat`` it checked."""
    return open_regular(path, follow=not (flags & _NOFOLLOW_FLAG))


def read_head(path: Path) -> tuple[bytes, os.stat_result]:
    """Read enough of ``path`` to hold its frontmatter (stop at the closing fence).

    Returns the bytes read and the file's ``stat``. Raises ``OSError`` for
    unreadable or non-regular files.
    """
    fd, st = _open_regular_stat(path)
    try:
        return _read_head_fd(fd, st), st
    finally:
        os.close(fd)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class LinkedOutside(OSError):
    """A symlinked file that points out of its folder, refused before it is opened."""


def _read_head_linked(
    path: Path | str,
    *,
    contained: bool = False,
    whole: int | Callable[[os.stat_result], int] = 0,
) -> tuple[bytes, os.stat_result, bool]:
    """:func:`read_head`, plus whether ``path`` itself is a symlink.

    The common case (a regular file) is opened with ``O_NOFOLLOW``, which
    answers the question without a separate ``lstat``; a symlink refuses that
    open and is opened again, following the link — unless ``contained`` is
    set and the link leaves the file's folder: then :class:`LinkedOutside`
    is raised and the target is never opened.

    With ``whole``, the bytes returned are the file's first ``whole`` bytes
    (or all of it), read through the same descriptor: the text the content
    checks read (the head a parse needs is a prefix of it). A callable ``whole``
    is asked with the descriptor's ``fstat`` how many bytes that is (``0``: the
    head alone, as without ``whole``).
    """
    linked = not _NOFOLLOW
    try:
        fd, st = open_regular(path, follow=not _NOFOLLOW)
    except OSError as exc:
        if not _NOFOLLOW or exc.errno not in (errno.ELOOP, errno.EMLINK):
            raise
        if contained:
            real = os.path.realpath(path)
            folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
            if not real.startswith(folder.rstrip(os.sep) + os.sep) and os.path.exists(real):
                raise LinkedOutside(errno.EPERM, f"a symlink to {real}", os.fspath(path)) from None
        fd, st = open_regular(path)  # a symlink (a loop raises again)
        linked = True
    try:
        if not _NOFOLLOW:
            linked = os.path.islink(path)
        limit = whole(st) if callable(whole) else whole
        if limit:
            return _read_whole_fd(fd, st, limit), st, linked
        return _read_head_fd(fd, st), st, linked
    finally:
        os.close(fd)


def _read_whole_fd(fd: int, st: os.stat_result, limit: int) -> bytes:
    """The first ``limit`` bytes of the open file ``fd`` (a cut character trimmed)."""
    data = os.read(fd, min(limit, max(st.st_size, _HEAD_CHUNK)))
    # the size fstat gave is reached: no read that would only find the end of the file
    while len(data) < min(limit, st.st_size):
        chunk = os.read(fd, min(65536, limit - len(data)))
        if not chunk:
            break
        data += chunk
    return data if len(data) < limit else _trim_partial_utf8(data)


def _read_head_fd(fd: int, st: os.stat_result) -> bytes:
    """The head of the open file ``fd`` (see :func:`read_head`)."""
    data = os.read(fd, _HEAD_CHUNK)
    if st.st_size <= len(data) < _HEAD_CHUNK:
        return data  # the whole file, in one read: no fence to look for first
    if not data.lstrip(b"\xef\xbb\xbf").startswith(b"---"):
        return _trim_partial_utf8(data)
    limit = MAX_FRONTMATTER_BYTES + _HEAD_CHUNK
    while len(data) < limit:
        if _find_fence(data, data.find(b"\n") + 1 if b"\n" in data else len(data)):
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    # a head that stops inside a character must not look like invalid UTF-8
    return data if len(data) >= st.st_size else _trim_partial_utf8(data)


#: The bytes :func:`_read_head_linked` reads with ``whole``: at least every head
#: :func:`_read_head_fd` could read, so :func:`_head_of` finds the same one.
WHOLE_BYTES = MAX_FRONTMATTER_BYTES + _HEAD_CHUNK + 65536


def _head_of(data: bytes, size: int) -> bytes:
    """What :func:`_read_head_fd` reads of a file of ``size`` bytes that begins with
    ``data`` (read with ``whole`` = :data:`WHOLE_BYTES`)."""
    head = data[:_HEAD_CHUNK]
    if head.lstrip(b"\xef\xbb\xbf").startswith(b"---"):
        limit = MAX_FRONTMATTER_BYTES + _HEAD_CHUNK
        n = len(head)
        while n < limit:
            if _find_fence(head, head.find(b"\n") + 1 if b"\n" in head else len(head)):
                break
            if n >= len(data):
                break
            n += 65536
            head = data[:n]
    return head if len(head) >= size else _trim_partial_utf8(head)


def _trim_partial_utf8(data: bytes) -> bytes:
    """``data`` without an incomplete UTF-8 sequence at its end (a read cut mid-character)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return data
        if byte >= 0xC0:
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return data[:-back] if need > back else data
    return data
