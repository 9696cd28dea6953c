"""The CLI's JSON writer is byte-identical to json.dumps(indent=2, sort_keys=True)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from skillpath.cli._common import dumps_json

_text = st.text(alphabet=st.sampled_from(list('ab{}[],:"\\\n\t é中\x1b}')), max_size=12)
_scalar = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), _text)
_flat = st.dictionaries(_text, _scalar, max_size=5)
_json = st.recursive(
    st.one_of(_scalar, _flat, st.lists(_flat, max_size=4)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_text, inner, max_size=4)),
    max_leaves=20,
)


def reference(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)


@settings(max_examples=1500, deadline=None)
@given(_json)
def test_same_bytes_as_json_dumps(data: Any) -> None:
    assert dumps_json(data) == reference(data)


def test_large_lists_of_flat_mappings_are_chunked_identically() -> None:
    data = {
        "skills": [
            {"name": f"s{i}", "description": "}},\n{" * (i % 3), "n": i} for i in range(1300)
        ],
        "shadowed": [],
        "diagnostics": [{"level": "info", "path": None, "line": 3}],
    }
    assert dumps_json(data) == reference(data)
