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


_nested = st.dictionaries(_text, st.one_of(_scalar, _flat), min_size=1, max_size=3)


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(
        st.one_of(_flat, _flat, _flat, _nested, _scalar, st.lists(_scalar, max_size=2)),
        max_size=12,
    )
)
def test_lists_mixing_flat_mappings_with_others(items: list[Any]) -> None:
    data = {"skills": items}
    assert dumps_json(data) == reference(data)


def test_long_runs_of_flat_mappings_broken_by_nested_ones() -> None:
    skills: list[Any] = [{"name": f"s{i}", "description": "}},\n{" * (i % 3)} for i in range(1300)]
    for i in (0, 5, 511, 512, 513, 1024, 1299):
        skills[i] = {"name": f"o{i}", "origin": {"kind": "python-package", "source": "x"}}
    data = {"skills": skills, "shadowed": [], "diagnostics": []}
    assert dumps_json(data) == reference(data)


# -- list --json's skill items, written as text (cli._listrun.skill_item) --------------

_any_text = st.text(max_size=10) | _text


@st.composite
def _skills(draw: Any) -> Any:
    from pathlib import Path

    from skillpath.model import Frontmatter, Skill, SkillSource

    folder = draw(_any_text.filter(lambda t: "\x00" not in t))
    path = None if draw(st.booleans()) else Path("/r", folder or "x", "SKILL.md")
    return Skill(
        name=draw(_any_text),
        description=draw(_any_text),
        path=path,
        base_dir=None if path is None else path.parent,
        source=SkillSource(draw(_any_text), draw(_any_text)),
        frontmatter=Frontmatter(
            hide=draw(st.booleans()), disable_model_invocation=draw(st.booleans())
        ),
    )


def _entries(skills: list[Any], with_origin: list[int]) -> tuple[list[Any], list[Any]]:
    """(what list --json writes, the mappings json.dumps would be given)."""
    from skillpath.cli._listrun import skill_entries
    from skillpath.provenance import Origin

    origins: list[Any] = [None] * len(skills)
    for k in with_origin:
        if k < len(skills):
            origins[k] = Origin("openskills", "x")
    dicts: list[Any] = [s.to_json() for s in skills]
    for d, origin in zip(dicts, origins, strict=True):
        if origin is not None:
            d["origin"] = origin.to_json()
    return skill_entries(skills, origins), dicts


@settings(max_examples=500, deadline=None)
@given(st.lists(_skills(), max_size=6), st.lists(st.integers(0, 5), max_size=3))
def test_skill_entries_are_the_text_of_to_json(skills: list[Any], with_origin: list[int]) -> None:
    items, dicts = _entries(skills, with_origin)
    assert dumps_json({"skills": items, "shadowed": []}) == reference(
        {"skills": dicts, "shadowed": []}
    )


def test_many_skill_entries_are_written_identically() -> None:
    from pathlib import Path

    import attrs
    from skillpath.model import Skill, SkillSource

    skills = [
        Skill(
            f"s{i}",
            "}},\n    {" * (i % 3),
            Path(f"/r/s{i}/SKILL.md"),
            Path(f"/r/s{i}"),
            SkillSource("native", "user"),
        )
        for i in range(1300)
    ]
    skills[7] = attrs.evolve(skills[7], description=None)  # not a str: its mapping
    items, dicts = _entries(skills, [0, 511, 512, 1299])
    assert dumps_json({"skills": items}) == reference({"skills": dicts})


def test_json_items_made_for_another_indentation_are_refused() -> None:
    import pytest
    from skillpath.cli._common import JSONItems

    with pytest.raises(ValueError, match="indentation"):
        dumps_json({"a": {"b": [JSONItems(["{}"], "    ", str)]}})
    with pytest.raises(TypeError, match="only in a list"):
        dumps_json({"a": JSONItems(["{}"], "  ", str)})


def test_published_skills_are_written_as_json_dumps_writes_them(tmp_path: Any) -> None:
    # the real published skills in tests/fixtures/realworld, each skills folder loaded
    # as a custom directory: list --json's text equals json.dumps of the mappings
    from pathlib import Path

    from skillpath import load_skills, make_context
    from skillpath.cli._listrun import skill_entries
    from skillpath.provenance import ProvenanceIndex

    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "realworld"
    folders = sorted(p for p in fixtures.rglob("*skills") if p.is_dir())
    compared = 0
    for folder in folders:
        # home and caches outside the fixtures (nothing is written into them)
        env = {"SKILLPATH": str(folder), "SKILLPATH_CACHE_DIR": str(tmp_path / "cache")}
        skills = list(load_skills(folder.parent, home=tmp_path, env=env).skills)
        ctx, _ = make_context(folder.parent, home=tmp_path, env=env)
        origins = ProvenanceIndex.build(ctx).origins(skills)
        dicts: list[Any] = [s.to_json() for s in skills]
        for entry, origin in zip(dicts, origins, strict=True):
            if origin is not None:
                entry["origin"] = origin.to_json()
        assert dumps_json({"skills": skill_entries(skills, origins)}) == reference(
            {"skills": dicts}
        ), folder
        compared += len(skills)
    assert compared >= 25  # every layout of the sample holds some
