"""Search quality and speed: ``python benchmarks/search.py [--skills N] [--extra DIR ...]``.

Quality, on real published skills (``tests/fixtures/realworld`` and any ``--extra``
folders, each searched for ``SKILL.md`` files):

* held-out description: each skill's ``description`` is hidden from the index and used as
  the query; Hit@1 / Hit@5 of that skill, for (a) the ranker over every field but the
  description (name, when_to_use, headings, body, resource names), (b) the same ranker over
  name + description only (what a router that sees only the listing has: the held-out
  skill is left with its name), (c) plain substring matching (skills ranked by how many
  query words occur in their name + body, ties by name);
* hand-written tasks: ``benchmarks/search_tasks.txt`` (one ``expected-skill<TAB>task`` per
  line, in a user's words), same three rankers but with every field indexed.

Speed, on a generated catalog of ``--skills`` skills (default 10,000): index build time and
size, query latency p50/p99 over 200 queries with the index built, and the cost the search
module adds to a cold ``list --json`` (none: ``list`` never imports it; checked by
``sys.modules``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attrs
from skillpath.model import Skill, SkillSource
from skillpath.search import SearchIndex, query_terms

HERE = Path(__file__).resolve().parent
REAL = HERE.parent / "tests" / "fixtures" / "realworld"
TASKS = HERE / "search_tasks.txt"


def real_skills(roots: list[Path]) -> list[Skill]:
    """Every loadable SKILL.md under ``roots``; a name seen twice keeps its first copy
    (sorted by path), so every query has one expected answer."""
    out: dict[str, Skill] = {}
    for root in roots:
        for path in sorted(root.rglob("SKILL.md")):
            skill, _diags = Skill.from_file(path, SkillSource("bench", "project", root))
            if skill is not None and skill.description and skill.name not in out:
                out[skill.name] = skill
    return sorted(out.values(), key=lambda s: s.name)


def without_description(skill: Skill) -> Skill:
    fm = attrs.evolve(skill.frontmatter, description=None)
    return attrs.evolve(skill, description="", frontmatter=fm)


def listing_only(skill: Skill, held_out: bool) -> Skill:
    """Name + description: the body and every other field emptied."""
    fm = attrs.evolve(skill.frontmatter, when_to_use=None, description=None)
    desc = "" if held_out else skill.description
    return attrs.evolve(skill, description=desc, frontmatter=fm, body_cache="", base_dir=None)


def substring_rank(skills: list[Skill], query: str) -> list[str]:
    terms = query_terms(query)
    texts = {s.name: (s.name + " " + s.body).casefold() for s in skills}
    scored = [(-sum(t in texts[s.name] for t in terms), s.name) for s in skills]
    scored = [x for x in scored if x[0] < 0]
    return [n for _score, n in sorted(scored)]


def hits(ranked: list[str], expected: str) -> tuple[int, int]:
    return int(ranked[:1] == [expected]), int(expected in ranked[:5])


def heldout(skills: list[Skill]) -> dict[str, tuple[float, float]]:
    totals = {"a": [0, 0], "b": [0, 0], "c": [0, 0]}
    a_index = SearchIndex.build([without_description(s) for s in skills])
    for target in skills:
        query = target.description
        b_set = [listing_only(s, s is target) for s in skills]
        ra = [h.name for h in a_index.search(query, 5, include_hidden=True)]
        rb = [h.name for h in SearchIndex.build(b_set).search(query, 5, include_hidden=True)]
        rc = substring_rank(skills, query)
        for key, ranked in (("a", ra), ("b", rb), ("c", rc)):
            h1, h5 = hits(ranked, target.name)
            totals[key][0] += h1
            totals[key][1] += h5
    n = len(skills)
    return {k: (v[0] / n, v[1] / n) for k, v in totals.items()}


def tasks(skills: list[Skill]) -> tuple[int, dict[str, tuple[float, float]]]:
    lines = [ln.split("\t", 1) for ln in TASKS.read_text().splitlines() if "\t" in ln]
    names = {s.name for s in skills}
    lines = [(e, q) for e, q in lines if e in names]
    full = SearchIndex.build(skills)
    listing = SearchIndex.build([listing_only(s, False) for s in skills])
    totals = {"a": [0, 0], "b": [0, 0], "c": [0, 0]}
    for expected, query in lines:
        for key, ranked in (
            ("a", [h.name for h in full.search(query, 5, include_hidden=True)]),
            ("b", [h.name for h in listing.search(query, 5, include_hidden=True)]),
            ("c", substring_rank(skills, query)),
        ):
            h1, h5 = hits(ranked, expected)
            totals[key][0] += h1
            totals[key][1] += h5
    n = max(1, len(lines))
    return len(lines), {k: (v[0] / n, v[1] / n) for k, v in totals.items()}


def generated(root: Path, real: list[Skill], n: int, seed: int = 7) -> list[Skill]:
    """``n`` skills shaped like the real ones: each copies one real skill's description and
    body with its sentences shuffled, under a name of its own, so the vocabulary and the
    lengths are those of published skills."""
    rng = random.Random(seed)
    skills = []
    for i in range(n):
        model = real[i % len(real)]
        name = f"{model.name}-{i}"
        folder = root / name
        folder.mkdir(parents=True)
        sentences = re.split(r"(?<=[.!?])\s+", model.description)
        rng.shuffle(sentences)
        paragraphs = model.body.split("\n\n")
        rng.shuffle(paragraphs)
        desc = " ".join(sentences).replace("\n", " ")
        head = f"---\nname: {name}\ndescription: {json.dumps(desc)}\n---\n"
        text = head + "\n\n".join(paragraphs)
        (folder / "SKILL.md").write_text(text)
        skill, _ = Skill.from_file(folder / "SKILL.md", SkillSource("bench", "project", root))
        if skill is not None:
            skills.append(skill)
    return skills


def speed(real: list[Skill], n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        skills = generated(Path(tmp) / "skills", real, n)
        t0 = time.perf_counter()
        index = SearchIndex.build(skills)
        build = time.perf_counter() - t0
        path = Path(tmp) / "index.sqlite"
        index.save(path)
        size = path.stat().st_size
        t0 = time.perf_counter()
        opened = SearchIndex.open(path, skills, index.digest)
        reopen = time.perf_counter() - t0
        assert opened is not None
        tasks = [ln.split("\t", 1)[1] for ln in TASKS.read_text().splitlines() if "\t" in ln]
        queries = [*tasks, *(s.description for s in real)]
        queries = (queries * (200 // len(queries) + 1))[:200]
        for q in queries[:10]:
            index.search(q, 5)

        def timed(fields: bool) -> tuple[list[float], list[float]]:
            wall, cpu = [], []
            for q in queries:
                w0, c0 = time.perf_counter(), time.process_time()
                index.search(q, 5, fields=fields)
                wall.append((time.perf_counter() - w0) * 1000)
                cpu.append((time.process_time() - c0) * 1000)
            return sorted(wall), sorted(cpu)

        def pct(values: list[float], q: float) -> float:
            return values[min(len(values) - 1, int(len(values) * q))]

        print(f"\n== speed at {len(skills)} skills ({len(queries)} queries: tasks, descriptions)")
        print(f"index build        {build * 1000:9.1f} ms  (size {size / 1e6:.1f} MB on disk)")
        print(f"index open (cache) {reopen * 1000:9.1f} ms")
        print("query latency, ms      wall p50  wall p99   cpu p50   cpu p99")
        for label, fields in (("ranking (tools)", False), ("with matched fields", True)):
            wall, cpu = timed(fields)
            print(
                f"{label:22} {pct(wall, 0.5):9.2f} {pct(wall, 0.99):9.2f} "
                f"{pct(cpu, 0.5):9.2f} {pct(cpu, 0.99):9.2f}"
            )
        print("(cpu: this process's CPU time, what the query costs whatever else runs)")
    probe = (
        "import sys, skillpath.cli; "
        "from skillpath.cli import main\n"
        "try:\n main(['list', '--json', '--cwd', sys.argv[1]], standalone_mode=False)\n"
        "except SystemExit: pass\n"
        "print('search-imported' if 'skillpath.search' in sys.modules else 'search-not-imported',"
        " file=sys.stderr)"
    )
    demo = HERE.parent / "examples" / "demo"
    res = subprocess.run(
        [sys.executable, "-c", probe, str(demo)], capture_output=True, text=True, check=False
    )
    tail = res.stderr.strip().splitlines()[-1:] or ["?"]
    print(f"cold list --json: {tail[0]} (nothing added when no search is asked for)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--skills", type=int, default=10000)
    ap.add_argument("--extra", type=Path, action="append", default=[])
    args = ap.parse_args()
    roots = [REAL, *args.extra]
    skills = real_skills(roots)
    print(f"== quality on {len(skills)} real published skills ({', '.join(map(str, roots))})")
    held = heldout(skills)
    count, by_task = tasks(skills)
    print(f"{'ranker':38} {'held-out Hit@1':>14} {'Hit@5':>6}   {'tasks Hit@1':>11} {'Hit@5':>6}")
    labels = {
        "a": "(a) BM25 over name + body",
        "b": "(b) BM25 over name + description",
        "c": "(c) substring matching",
    }
    for key, label in labels.items():
        h1, h5 = held[key]
        t1, t5 = by_task[key]
        print(f"{label:38} {h1:14.3f} {h5:6.3f}   {t1:11.3f} {t5:6.3f}")
    print(f"({count} hand-written tasks in {TASKS.name})")
    speed(skills, args.skills)


if __name__ == "__main__":
    os.environ.setdefault("SKILLPATH_NO_SNAPSHOT", "1")
    main()
