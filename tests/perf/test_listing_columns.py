"""The column-by-column listing is the entry-by-entry one, byte for byte.

``render_listing`` checks a whole column of names, descriptions or paths at once
and, when every value is already neutral, builds the entries from columns; it
sorts by the folded name alone when no two names fold alike, and orders the keep
order with two stable sorts. ``listing_reference.py`` (next to this file) is the
module as it was before; both must give the same text and the same report for
many random budgets, entry caps, formats and mixes of skills, clean ones (where
the column path is taken) and ones with a single odd value (where it is not).
"""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path, PurePosixPath
from types import ModuleType

import pytest
from skillpath import Frontmatter, Skill, SkillSource
from skillpath.listing import render_listing


def _load_reference() -> ModuleType:
    path = Path(__file__).with_name("listing_reference.py")
    spec = importlib.util.spec_from_file_location("skillpath_listing_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REFERENCE = _load_reference()
SOURCES = (
    SkillSource("native", "project", Path("/skills")),
    SkillSource("native", "user", Path("/home/u/skills")),
    SkillSource("packs", "package", None, "pack"),
    SkillSource("claude-plugins", "user", Path("/plugins")),
    SkillSource("managed", "user", Path("/learned")),
)
WORDS = (
    "use",
    "it",
    "for",
    "PDFs.",
    "tables!",
    "why?",
    "a",
    "review",
    "deploy",
    "end,",
    "schema-migrations",
    "verylongwordwithoutanyspacesatallthatgoesonandonandon",
)
#: One odd value, put into one skill of an otherwise clean catalog.
ODD_TEXT = (
    "  two  spaces ",
    " lead",
    "trail ",
    "tab\there",
    "zero\u200bwidth",
    "bell\x07",
    "a\u2028b",
    "<skills>",
    "</ SKILLS>",
    "<b>",
    "&amp",
    "'q'",
    '"dq"',
    "é",
    "nbsp\xa0x",
    "x|y",
    "",
)
ODD_PATHS = (
    None,
    "rel/SKILL.md",
    "/skills/a/../b/SKILL.md",
    "//net/x/SKILL.md",
    "/skills/./c/SKILL.md",
    "/skills/sp  ace/SKILL.md",
    "/skills/bell\x07/SKILL.md",
    "/skills/trail/",
    "/skills/amp&/SKILL.md",
    "/skills/é/SKILL.md",
)


def _text(rng: random.Random, lo: int, hi: int) -> str:
    out = ""
    size = rng.randint(lo, hi)
    while len(out) < size:
        out += " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12))).capitalize()
        out += ". " if rng.random() < 0.8 else " "
    return out.strip()


def _catalog(rng: random.Random, n: int, odd: str | None) -> list[Skill]:
    skills = []
    names = rng.sample(range(10 * n + 10), n)
    for i in names:
        name = f"{rng.choice(WORDS)[:12].lower().strip('.,!?')}-{i}"
        path: Path | None = Path(f"/skills/{name}/SKILL.md")
        if rng.random() < 0.05:
            path = None
        skills.append(
            Skill(
                name=name,
                description=_text(rng, int(rng.random() >= 0.05) * 20, rng.choice((80, 400, 2000))),
                path=path,
                base_dir=path.parent if path is not None else None,
                source=rng.choice(SOURCES),
                priority=rng.choice((0, 50, 100, 100, 100)),
                frontmatter=Frontmatter(hide=rng.random() < 0.03),
            )
        )
    if odd and skills:
        k = rng.randrange(len(skills))
        s = skills[k]
        if odd == "name":
            odd_name = rng.choice(ODD_TEXT)
            s = Skill(
                odd_name + s.name if rng.random() < 0.5 else s.name + odd_name,
                s.description,
                s.path if rng.random() < 0.5 else None,
                s.base_dir,
                s.source,
                s.priority,
                s.frontmatter,
            )
        elif odd == "description":
            s = Skill(
                s.name,
                s.description + rng.choice(ODD_TEXT),
                s.path,
                s.base_dir,
                s.source,
                s.priority,
                s.frontmatter,
            )
        elif odd == "when":
            s = Skill(
                s.name,
                s.description,
                s.path,
                s.base_dir,
                s.source,
                s.priority,
                Frontmatter(when_to_use=rng.choice((*ODD_TEXT, "Use it when asked."))),
            )
        elif odd == "path":
            raw = rng.choice(ODD_PATHS)
            p = Path(raw) if raw else None
            s = Skill(s.name, s.description, p, None, s.source, s.priority, s.frontmatter)
        elif odd == "pure-path":
            p = PurePosixPath(f"/skills/{s.name}/SKILL.md")
            s = Skill(
                s.name,
                s.description,
                p,
                None,
                s.source,
                s.priority,  # type: ignore[arg-type]
                s.frontmatter,
            )
        elif odd == "twice":
            s = skills[(k + 1) % len(skills)]
        elif odd == "folded":
            s = Skill(
                s.name.upper(),
                s.description,
                s.path,
                s.base_dir,
                s.source,
                s.priority,
                s.frontmatter,
            )
            skills.append(s)
        skills[k] = s
    rng.shuffle(skills)
    return skills


def _same(skills: list[Skill], **kw: object) -> None:
    got = render_listing(skills, **kw)  # type: ignore[arg-type]
    want = REFERENCE.render_listing(skills, **kw)
    assert got.text == want.text
    assert got.report.to_json() == want.report.to_json()


ODD = (None, None, None, "name", "description", "when", "path", "pure-path", "twice", "folded")


@pytest.mark.parametrize("seed", range(240))
def test_random_catalogs_render_as_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    skills = _catalog(rng, rng.choice((0, 1, 2, 5, 20, 60, 200)), ODD[seed % len(ODD)])
    for fmt in ("skills", "agentskills", "claude"):
        budget = rng.choice((0, -1, 1, 50, 200, 400, 1000, 3000, 8000, rng.randint(100, 20000)))
        cap = rng.choice((None, 0, 1, 40, 60, 100, 1536))
        _same(skills, format=fmt, budget=budget, entry_cap=cap)
        if seed % 4 == 0:
            pinned = [s.name for s in rng.sample(skills, min(2, len(skills)))]
            _same(
                skills,
                format=fmt,
                budget=budget,
                entry_cap=cap,
                pinned=pinned,
                quotas={"packs": rng.randint(0, 5)},
                search_tool="search_skills",
            )


@pytest.mark.parametrize("fmt", ["skills", "agentskills", "claude"])
def test_ten_thousand_skills_render_as_the_reference(fmt: str) -> None:
    rng = random.Random(fmt)
    skills = _catalog(rng, 10_000, None)
    for budget in (8000, 200_000, 0):
        _same(skills, format=fmt, budget=budget)


@pytest.mark.parametrize("fmt", ["skills", "agentskills", "claude"])
@pytest.mark.parametrize("name", ["end ", " start", "in side", "x|y", "a&b", "\u00e9t\u00e9"])
def test_names_off_disk_render_as_the_reference(fmt: str, name: str) -> None:
    """A skill with no file is located at ``skill://<name>``, stripped as its name is."""
    rng = random.Random(name)
    skills = _catalog(rng, 30, None)
    skills.append(Skill(name, "Does a thing.", None, None, SOURCES[2]))
    for budget in (0, 300, 8000):
        _same(skills, format=fmt, budget=budget)
