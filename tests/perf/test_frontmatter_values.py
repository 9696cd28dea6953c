"""frontmatter_values visits only the fields present and gives what checking every
field in turn gives: the same values, the same diagnostics in the same order."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from skillpath import frontmatter as fm
from skillpath.model import Diagnostic


def reference(data: Mapping[str, Any], path: Path | None) -> tuple[dict[str, Any], list[Any]]:
    """Every field checked in turn, in the documented order (booleans, strings,
    lists, hooks, metadata)."""
    diags: list[Diagnostic] = []
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    written: dict[str, str] = {}
    for key, value in data.items():
        norm = fm.normalize_key(key)
        if norm not in fm._FIELDS:
            extra[key] = value
            continue
        values[norm] = value
        written[norm] = key
    out: dict[str, Any] = {}
    for fname in fm._BOOL_FIELDS:
        if fname in values:
            default = fname == "user_invocable"
            b = fm.coerce_bool(values[fname], default)
            if b is None:
                diags.append(("bool", written[fname], repr(values[fname])))
                b = default
            out[fname] = b
    for fname in fm._STR_FIELDS:
        if fname in values and values[fname] is not None:
            v = values[fname]
            if fname == "argument_hint" and isinstance(v, list):
                out[fname] = " ".join(f"[{fm._hint_item(item)}]" for item in v)
                continue
            if isinstance(v, (dict, list)):
                diags.append(("str", written[fname], type(v).__name__))
                continue
            out[fname] = str(v).strip()
    for fname, spaces in fm._LIST_FIELDS:
        if fname in values:
            out[fname] = fm._as_list(values[fname], split_spaces=spaces)
    for fname in ("hooks", "metadata"):
        v = values.get(fname)
        if v is not None:
            if isinstance(v, Mapping):
                out[fname] = v
            else:
                diags.append(("mapping", written[fname], None))
    out["extra"] = extra
    out["raw"] = dict(data)
    return out, diags


def _shape(d: Diagnostic) -> tuple[Any, ...]:
    kind = "bool" if "boolean" in d.message else "str" if "string" in d.message else "mapping"
    key = d.message.split("'")[1]
    detail = d.message.split("got ")[1].split(";")[0] if kind != "mapping" else None
    if kind == "str":
        detail = detail.removeprefix("a ")
    return (kind, key, detail)


_KEYS = [
    *fm._FIELDS,
    "disable-model-invocation",
    "disableModelInvocation",
    "user-invocable",
    "userInvokable",
    "allowed-tools",
    "allowedTools",
    "argument-hint",
    "when-to-use",
    "alwaysApply",
    "Name",
    "tags",
    "version",
    "x-custom",
]
_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 3),
    st.floats(allow_nan=False),
    st.sampled_from(["", " yes ", "no", "maybe", "Read, Grep", "a b  c", " x "]),
)
_VALUE = st.one_of(
    _SCALAR,
    st.lists(_SCALAR, max_size=3),
    st.lists(st.lists(_SCALAR, max_size=2), max_size=2),
    st.dictionaries(st.sampled_from(["a", "b"]), _SCALAR, max_size=2),
)


@settings(max_examples=2000, deadline=None)
@given(st.dictionaries(st.sampled_from(_KEYS), _VALUE, max_size=8))
def test_same_values_and_diagnostics(data: dict[str, Any]) -> None:
    path = Path("/skills/x/SKILL.md")
    values, diags = fm.frontmatter_values(data, path)
    want, want_diags = reference(data, path)
    assert values == want
    assert list(values) == list(want)  # the same insertion order too
    assert [_shape(d) for d in diags] == want_diags
    assert all(d.path == path and d.code == "frontmatter-bad-value" for d in diags)
