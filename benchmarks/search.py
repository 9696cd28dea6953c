"""Search quality and speed: ``python benchmarks/search.py [--corpus DIR ...] [--skills N]``.

Quality, on real published skills: every ``SKILL.md`` under ``tests/fixtures/realworld``
and each ``--corpus`` folder (repeatable; ``--extra`` is the same option). A name seen
twice keeps its first copy (roots in the order given, then by path), as a catalog does.

* held-out description: each skill's ``description`` is hidden from the index and used as
  the query; Hit@1 / Hit@5 of that skill, for (a) the ranker over every field but the
  description (name, when_to_use, headings, body, resource names), (b) the same ranker over
  name + description only (what a router that sees only the listing has: the held-out
  skill is left with its name), (c) plain substring matching (skills ranked by how many
  query words occur in their name + body, ties by name);
* hand-written tasks: ``benchmarks/search_tasks.txt`` (one ``expected-skill<TAB>task`` per
  line, in a user's words), same three rankers but with every field indexed. Tasks whose
  expected skill is not in the corpus are listed and not scored.

A hit is the expected skill, or a skill whose body is the same text (whitespace
normalised): the same skill published twice under two names cannot be told apart once
its description is hidden, so either copy counts. The number of skills with such a twin
is printed.

Speed, on a generated catalog of ``--skills`` skills (default 10,000): index build time and
size, query latency p50/p99 over 200 queries, both of ``SearchIndex.search`` and of
``search_skills`` end to end (the catalog as the surfaces pass it, the index memoised), in
wall and CPU time, and the cost the search module adds to a cold ``list --json`` (none:
``list`` never imports it; checked by ``sys.modules``).
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
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import attrs
from skillpath import load_skill_file
from skillpath.model import Skill, SkillSource
from skillpath.search import SearchIndex, index_for, query_terms, search_skills

HERE = Path(__file__).resolve().parent
REAL = HERE.parent / "tests" / "fixtures" / "realworld"
TASKS = HERE / "search_tasks.txt"


def real_skills(roots: list[Path]) -> tuple[list[Skill], int]:
    """Every loadable SKILL.md with a description under ``roots``; a name seen twice keeps
    its first copy (roots in order, then sorted by path), so every query has one expected
    answer. Also returns how many later copies of a name were left out."""
    out: dict[str, Skill] = {}
    same_name = 0
    for root in roots:
        for path in sorted(root.rglob("SKILL.md")):
            skill, _diags = load_skill_file(path, SkillSource("bench", "project", root))
            if skill is None or not skill.description:
                continue
            if skill.name in out:
                same_name += 1
                continue
            out[skill.name] = skill
    return sorted(out.values(), key=lambda s: s.name), same_name


def twins(skills: list[Skill]) -> dict[str, frozenset[str]]:
    """Each skill's name and the names of the skills with the same body text."""
    by_body: dict[str, set[str]] = defaultdict(set)
    for s in skills:
        by_body[" ".join(s.body.split())].add(s.name)
    return {s.name: frozenset(by_body[" ".join(s.body.split())]) for s in skills}


def without_description(skill: Skill) -> Skill:
    fm = attrs.evolve(skill.frontmatter, description=None)
    return attrs.evolve(skill, description="", frontmatter=fm)


def listing_only(skill: Skill, held_out: bool) -> Skill:
    """Name + description: the body and every other field emptied."""
    fm = attrs.evolve(skill.frontmatter, when_to_use=None, description=None)
    desc = "" if held_out else skill.description
    return attrs.evolve(
        skill, description=desc, frontmatter=fm, body_cache=lambda: "", base_dir=None
    )


class Substring:
    """(c): skills ranked by how many query words occur in their name + body, ties by name
    (which skills hold a word is remembered: queries share most of their words)."""

    def __init__(self, skills: list[Skill]) -> None:
        self.names = [s.name for s in skills]
        self.texts = [(s.name + " " + s.body).casefold() for s in skills]
        self.holders: dict[str, list[int]] = {}

    def _holding(self, term: str) -> list[int]:
        found = self.holders.get(term)
        if found is None:
            found = self.holders[term] = [i for i, t in enumerate(self.texts) if term in t]
        return found

    def rank(self, query: str, k: int = 5) -> list[str]:
        counts: dict[int, int] = defaultdict(int)
        for term in query_terms(query):
            for i in self._holding(term):
                counts[i] += 1
        best = sorted((-c, self.names[i]) for i, c in counts.items())
        return [name for _c, name in best[:k]]


class HeldOutListing:
    """(b): the ranker over name + description, with one skill's description held out.

    Building that index once per held-out skill costs a minute per thousand skills, so
    the index is built once and the held-out skill's row is swapped for a name-only row
    (and back) around its query; :meth:`check` compares that with a full rebuild."""

    def __init__(self, skills: list[Skill]) -> None:
        self.skills = skills
        self.listed = [listing_only(s, False) for s in skills]
        self.index = SearchIndex.build(self.listed, digest="b")

    def _put(self, rowid: int, skill: Skill) -> None:
        from skillpath.search import _row  # the row the index builds for a skill

        conn = self.index._conn
        conn.execute("DELETE FROM skills WHERE rowid = ?", (rowid,))
        conn.execute(
            "INSERT INTO skills(rowid, name, description, when_to_use, headings, body, resources)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (rowid, *_row(skill)),
        )
        self.index._df = dict(conn.execute("SELECT term, doc FROM temp.skills_v"))

    def top(self, i: int, query: str) -> list[str]:
        target = self.skills[i]
        rowid = self.index._by_name[target.name]
        self._put(rowid, listing_only(target, True))
        try:
            return top(self.index, query)
        finally:
            self._put(rowid, self.listed[i])

    def check(self, count: int) -> None:
        """The swapped index answers as a rebuilt one does (scores included)."""
        for i in range(0, len(self.skills), max(1, len(self.skills) // count)):
            target = self.skills[i]
            rebuilt = SearchIndex.build(
                [*self.listed[:i], listing_only(target, True), *self.listed[i + 1 :]], digest="r"
            )
            want = [
                (h.name, h.score)
                for h in rebuilt.search(target.description, 5, include_hidden=True, fields=False)
            ]
            rowid = self.index._by_name[target.name]
            self._put(rowid, listing_only(target, True))
            try:
                got = [
                    (h.name, h.score)
                    for h in self.index.search(
                        target.description, 5, include_hidden=True, fields=False
                    )
                ]
            finally:
                self._put(rowid, self.listed[i])
            assert got == want, (target.name, got, want)


def hits(ranked: list[str], expected: frozenset[str]) -> tuple[int, int]:
    return int(bool(ranked[:1]) and ranked[0] in expected), int(
        any(n in expected for n in ranked[:5])
    )


Tally = dict[str, list[int]]


def top(index: SearchIndex, query: str) -> list[str]:
    """The five best names (hidden skills included: the benchmark ranks every skill)."""
    return [h.name for h in index.search(query, 5, include_hidden=True, fields=False)]


def score(tally: Tally, key: str, ranked: list[str], expected: frozenset[str]) -> None:
    h1, h5 = hits(ranked, expected)
    tally[key][0] += h1
    tally[key][1] += h5


def heldout(skills: list[Skill], twin: dict[str, frozenset[str]]) -> dict[str, tuple[float, float]]:
    totals: Tally = {"a": [0, 0], "b": [0, 0], "c": [0, 0]}
    a_index = SearchIndex.build([without_description(s) for s in skills], digest="a")
    listing = HeldOutListing(skills)
    listing.check(20)
    sub = Substring(skills)
    for i, target in enumerate(skills):
        query = target.description
        expected = twin[target.name]
        score(totals, "a", top(a_index, query), expected)
        score(totals, "b", listing.top(i, query), expected)
        score(totals, "c", sub.rank(query), expected)
    n = len(skills)
    return {k: (v[0] / n, v[1] / n) for k, v in totals.items()}


def tasks(
    skills: list[Skill], twin: dict[str, frozenset[str]]
) -> tuple[int, int, list[str], dict[str, tuple[float, float]]]:
    """``(scored, written, missing expected names, {ranker: (Hit@1, Hit@5)})``."""
    lines = [ln.split("\t", 1) for ln in TASKS.read_text().splitlines() if "\t" in ln]
    names = {s.name for s in skills}
    missing = sorted({e for e, _q in lines if e not in names})
    kept = [(e, q) for e, q in lines if e in names]
    full = SearchIndex.build(skills, digest="full")
    listing = SearchIndex.build([listing_only(s, False) for s in skills], digest="listing")
    sub = Substring(skills)
    totals: Tally = {"a": [0, 0], "b": [0, 0], "c": [0, 0]}
    rankers: dict[str, Callable[[str], list[str]]] = {
        "a": lambda q: top(full, q),
        "b": lambda q: top(listing, q),
        "c": sub.rank,
    }
    for expected, query in kept:
        for key, rank in rankers.items():
            score(totals, key, rank(query), twin[expected])
    n = max(1, len(kept))
    return len(kept), len(lines), missing, {k: (v[0] / n, v[1] / n) for k, v in totals.items()}


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
        skill, _ = load_skill_file(folder / "SKILL.md", SkillSource("bench", "project", root))
        if skill is not None:
            skills.append(skill)
    return skills


def speed(real: list[Skill], n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        skills = generated(Path(tmp) / "skills", real, n)
        catalog = tuple(skills)  # what a session passes: the same tuple until it changes
        t0, c0 = time.perf_counter(), time.process_time()
        index = index_for(catalog)  # the first search of a catalog builds it
        build, build_cpu = time.perf_counter() - t0, time.process_time() - c0
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

        timings: dict[str, Callable[[str], object]] = {
            "index.search, no fields": lambda q: index.search(q, 5, fields=False),
            "search_skills (tools)": lambda q: search_skills(catalog, q, 5, fields=False),
            "search_skills + fields": lambda q: search_skills(catalog, q, 5),
        }

        def timed(run: Callable[[str], object]) -> tuple[list[float], list[float]]:
            wall, cpu = [], []
            for q in queries:
                w0, c0 = time.perf_counter(), time.process_time()
                run(q)
                wall.append((time.perf_counter() - w0) * 1000)
                cpu.append((time.process_time() - c0) * 1000)
            return sorted(wall), sorted(cpu)

        def pct(values: list[float], q: float) -> float:
            return values[min(len(values) - 1, int(len(values) * q))]

        print(f"\n== speed at {len(skills)} skills ({len(queries)} queries: tasks, descriptions)")
        print(
            f"index build        {build * 1000:9.1f} ms wall, {build_cpu * 1000:.1f} ms CPU"
            f"  (size {size / 1e6:.1f} MB on disk)"
        )
        print(f"index open (cache) {reopen * 1000:9.1f} ms")
        print("query latency, ms         wall p50  wall p99   cpu p50   cpu p99")
        for label, run in timings.items():
            wall, cpu = timed(run)
            print(
                f"{label:25} {pct(wall, 0.5):9.2f} {pct(wall, 0.99):9.2f} "
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


def quality(roots: list[Path]) -> list[Skill]:
    skills, same_name = real_skills(roots)
    twin = twins(skills)
    twinned = sum(1 for names in twin.values() if len(names) > 1)
    print(f"== quality on {len(skills)} real published skills ({', '.join(map(str, roots))})")
    print(
        f"({same_name} later copies of a name left out; {twinned} skills share their body "
        "with another name, and either copy counts as a hit)"
    )
    t0 = time.process_time()
    held = heldout(skills, twin)
    count, written, missing, by_task = tasks(skills, twin)
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
    print(f"({count} of {written} hand-written tasks in {TASKS.name} scored", end="")
    print(f"; expected skill not in the corpus: {', '.join(missing)})" if missing else ")")
    print(f"(quality: {time.process_time() - t0:.0f} s CPU)")
    return skills


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--skills", type=int, default=10000, help="catalog size of the speed run")
    ap.add_argument(
        "--corpus",
        "--extra",
        dest="corpus",
        type=Path,
        action="append",
        default=[],
        help="another folder of published skills (searched for SKILL.md; repeatable)",
    )
    ap.add_argument("--no-quality", action="store_true", help="only the speed figures")
    ap.add_argument("--no-speed", action="store_true", help="only the quality figures")
    args = ap.parse_args()
    roots = [REAL, *args.corpus]
    skills = real_skills(roots)[0] if args.no_quality else quality(roots)
    if not args.no_speed:
        speed(skills, args.skills)


if __name__ == "__main__":
    os.environ.setdefault("SKILLPATH_NO_SNAPSHOT", "1")
    main()
