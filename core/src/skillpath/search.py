"""Ranked search over the loaded skills (SQLite FTS5, BM25 with field weights).

When a listing cannot hold every skill, a model (or a person) asks for the few
that fit a task: :func:`search_skills` ranks the loaded catalog against a
query and returns the best ``k``. The index holds, per skill, six fields:

========== ====== ==========================================================
field      weight what it holds
========== ====== ==========================================================
name       8      the name, and its words (``pdf-tables`` → ``pdf tables``)
description 4     the ``description``
when_to_use 3     the ``when_to_use`` (Claude Code's second description field)
headings   2      the Markdown headings of the body
body       1      the body (its first :data:`BODY_LIMIT` characters)
resources  1      the names of the files in the skill folder (at most
                  :data:`RESOURCE_LIMIT`, links not followed)
========== ====== ==========================================================

Ranking is SQLite's ``bm25()`` over those columns with those weights
(:data:`WEIGHTS`), through the standard :mod:`sqlite3` module (FTS5 with the
``porter unicode61`` tokenizer: case-folded, diacritics removed, English
stemming). A query is split into words; common English words are dropped; the
rest are OR-ed, so a skill matching more (and rarer) words ranks higher.
Scores are rounded to six decimals and ties broken by name, so the same
catalog and query give byte-identical results in every run and process.

Which skills are searchable: every skill of the catalog the caller passes
(filtered and disabled skills are not in a :class:`~skillpath.model.LoadResult`
at all); hidden skills (``hide``, ``disable-model-invocation``) only when the
caller passes ``include_hidden=True``.

The index is a pure function of the catalog. In one process it is kept per
catalog digest (:func:`catalog_digest`: each skill's name, description,
source and the ``(size, mtime)`` of its ``SKILL.md``, or its text when it is
not on disk); a changed catalog gives a new digest and a new index, so it is
never stale. :class:`SearchIndex` can also be saved to, and opened from, a
file in the cache (``<cache>/search/<digest>.sqlite``) so that a short-lived
``skillpath search`` does not rebuild it; a file is used only when it is a
regular file owned by the user, not writable by others, and its recorded
digest matches — anything else is rebuilt.

Plugins may re-rank results through the ``rank_skills`` hook (an embedding
model, a reranker); see :func:`skillpath.hookspecs.rank_skills`.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import stat
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from skillpath.resources import walk_skill_files
from skillpath.textguard import strip_invisible

if TYPE_CHECKING:
    from skillpath.context import SkillContext
    from skillpath.model import Diagnostic, LoadResult, Skill
    from skillpath.plugins import PluginHost

__all__ = [
    "BODY_LIMIT",
    "FIELDS",
    "MAX_QUERY_CHARS",
    "MAX_TOOL_RESULTS",
    "RESOURCE_LIMIT",
    "SEARCH_TOOL_NAME",
    "WEIGHTS",
    "SearchExplanation",
    "SearchHit",
    "SearchIndex",
    "catalog_digest",
    "format_hits",
    "index_for",
    "query_terms",
    "run_search_tool",
    "search_skills",
    "search_tool_schema",
]

#: The indexed fields, in column order.
FIELDS: tuple[str, ...] = ("name", "description", "when_to_use", "headings", "body", "resources")
#: BM25 weight of each field (same order as :data:`FIELDS`).
WEIGHTS: Mapping[str, float] = {
    "name": 8.0,
    "description": 4.0,
    "when_to_use": 3.0,
    "headings": 2.0,
    "body": 1.0,
    "resources": 1.0,
}
#: Characters of a body that are indexed.
BODY_LIMIT = 65536
#: File names of one skill folder that are indexed.
RESOURCE_LIMIT = 200
#: Words of one query that are used (the rest are ignored).
QUERY_TERMS_LIMIT = 64
#: Query words searched (the rarest in the index).
SEARCHED_TERMS = 8
#: In-process indexes kept (one per catalog digest), least recently used dropped.
MEMO_SIZE = 4

_FORMAT = 1
_WORD = re.compile(r"[^\W_]+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
#: Common English words a query ignores.
_STOPWORD_TEXT = (
    "a about an and any are as at be by can do does for from has have how i if in into is "
    "it its me my of on or our should so that the their them then there these this to use "
    "used uses using was we what when where which while who will with without you your"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@attrs.frozen
class SearchHit:
    """One ranked result: the skill, its score (higher is better) and the fields that matched."""

    name: str
    score: float
    matched: tuple[str, ...]
    skill: Skill = attrs.field(eq=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        """``name``, ``score``, ``matched`` (field names) and ``description``."""
        return {
            "name": self.name,
            "score": self.score,
            "matched": list(self.matched),
            "description": strip_invisible(self.skill.description)[0],
        }


@attrs.frozen
class SearchExplanation:
    """Why one skill ranked where it did for a query (see :meth:`SearchIndex.explain`)."""

    name: str
    query: str
    terms: tuple[str, ...]
    rank: int | None
    score: float | None
    of: int
    #: field -> the query terms found in it
    fields: Mapping[str, tuple[str, ...]]

    def line(self) -> str:
        """One line a person reads."""
        if self.rank is None:
            if not self.terms:
                return f"{self.name}: the query has no searchable words"
            return f"{self.name}: matches none of the query words ({', '.join(self.terms)})"
        parts = [f"{f} ({', '.join(t)})" for f, t in self.fields.items() if t]
        return (
            f"{self.name}: rank {self.rank} of {self.of} matching, score {self.score:.3f}; "
            f"matched in {'; '.join(parts) if parts else 'no field'}"
        )

    def to_json(self) -> dict[str, Any]:
        """The explanation as a JSON object."""
        return {
            "name": self.name,
            "query": self.query,
            "terms": list(self.terms),
            "rank": self.rank,
            "score": self.score,
            "matching": self.of,
            "fields": {f: list(t) for f, t in self.fields.items()},
        }


def query_terms(query: str) -> tuple[str, ...]:
    """The words of ``query`` that are searched: case-folded, common words dropped, in order,
    each once, at most :data:`QUERY_TERMS_LIMIT`."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(query.casefold()):
        if word in _STOPWORDS or word in seen or word == "_":
            continue
        seen[word] = None
        if len(seen) >= QUERY_TERMS_LIMIT:
            break
    return tuple(seen)


def _match_expr(terms: Iterable[str], column: str | None = None) -> str:
    quoted = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
    return f"{{{column}}} : ({quoted})" if column else quoted


def _stamp(skill: Skill) -> str:
    """What identifies one skill's indexed content cheaply: its file's size and mtime."""
    path = skill.path
    if path is not None:
        try:
            st = os.stat(path)
        except OSError:
            return "missing"
        return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"
    try:
        body = skill.body
    except Exception as exc:  # noqa: BLE001 - a plugin's body loader may raise anything
        body = f"<unreadable {type(exc).__name__}>"
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()


def catalog_digest(skills: Sequence[Skill]) -> str:
    """A digest of everything the index of ``skills`` is built from (see the module docstring)."""
    h = hashlib.sha256(f"skillpath-search:{_FORMAT}".encode())
    for skill in sorted(skills, key=_identity):
        fm = skill.frontmatter
        for part in (
            skill.name,
            skill.description,
            fm.when_to_use or "",
            f"{skill.source.provider}/{skill.source.level}",
            str(skill.path or ""),
            str(skill.base_dir or ""),
            _stamp(skill),
            "h" if skill.hidden else "v",
        ):
            h.update(part.encode("utf-8", "surrogatepass"))
            h.update(b"\0")
        h.update(b"\1")
    return h.hexdigest()


def _identity(skill: Skill) -> tuple[str, str, str, str]:
    src = skill.source
    return (skill.name, src.provider, src.level, str(skill.path or ""))


def _resources(base_dir: Path | None) -> str:
    """File names under ``base_dir`` but its ``SKILL.md`` files, as
    :func:`skillpath.resources.walk_skill_files` finds them (dot entries, refused names
    and links leaving the folder left out), bounded."""
    if base_dir is None:
        return ""
    walk = walk_skill_files(base_dir)
    names = [e.rel for e in walk.entries if e.path.name != "SKILL.md"]
    return " ".join(names[:RESOURCE_LIMIT])


def _row(skill: Skill) -> tuple[str, ...]:
    try:
        body = skill.body[:BODY_LIMIT]
    except Exception:  # noqa: BLE001 - unreadable body: found by its other fields
        body = ""
    headings = " ".join(m.group(1) for m in _HEADING.finditer(body))
    name = skill.name
    spelled = " ".join(w for w in re.split(r"[-_.:/\s]+", name) if w)
    return (
        f"{name} {spelled}" if spelled != name else name,
        skill.description or "",
        skill.frontmatter.when_to_use or "",
        headings,
        body,
        _resources(skill.base_dir),
    )


def _owned_safely(path: Path) -> bool:
    """A regular file (not a link) owned by this user and writable by no one else."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o022:
        return False
    getuid = getattr(os, "getuid", None)
    return getuid is None or st.st_uid == getuid()


class SearchIndex:
    """An FTS5 index over one catalog; build with :meth:`build`, query with :meth:`search`.

    The object is safe to share between threads (queries are serialised on
    one connection); it holds the skills it was built from.
    """

    def __init__(self, conn: sqlite3.Connection, skills: Sequence[Skill], digest: str) -> None:
        """Wrap an open index; use :meth:`build` or :meth:`open` instead."""
        self._conn = conn
        self._skills = list(skills)
        self._by_name = {s.name: i for i, s in enumerate(self._skills)}
        self._hidden = sum(1 for s in self._skills if s.hidden)
        for ddl in (
            f"temp.stem USING fts5(w, {_TOKENIZE})",
            "temp.stem_v USING fts5vocab(stem, 'instance')",
            "temp.skills_v USING fts5vocab(main, skills, 'row')",
        ):
            conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {ddl}")
        self._df: dict[str, int] = dict(conn.execute("SELECT term, doc FROM temp.skills_v"))
        self._stems: dict[str, str | None] = {}
        self.digest = digest
        self._lock = threading.Lock()

    @property
    def skills(self) -> Sequence[Skill]:
        """The skills the index was built from, in row order."""
        return tuple(self._skills)

    @classmethod
    def build(cls, skills: Sequence[Skill], *, digest: str | None = None) -> SearchIndex:
        """Index ``skills`` (in memory). Rows follow the skills sorted by name then source."""
        ordered = sorted(skills, key=_identity)
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        _create(conn)
        conn.executemany(
            "INSERT INTO skills(rowid, name, description, when_to_use, headings, body, resources)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            ((i, *_row(s)) for i, s in enumerate(ordered)),
        )
        # one b-tree segment instead of the many a bulk insert leaves: queries merge
        # fewer doclists (about 8% less CPU at 10,000 skills, for 5% more build time)
        conn.execute("INSERT INTO skills(skills) VALUES ('optimize')")
        digest = digest or catalog_digest(ordered)
        conn.execute("INSERT INTO meta VALUES ('digest', ?)", (digest,))
        conn.commit()
        return cls(conn, ordered, digest)

    def save(self, path: Path) -> None:
        """Write the index to ``path`` atomically (a private file, mode 0600)."""
        from skillpath.files import atomic_path

        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with atomic_path(path, mode=0o600) as tmp:
            dest = sqlite3.connect(str(tmp))
            try:
                with self._lock:
                    self._conn.backup(dest)
            finally:
                dest.close()

    @classmethod
    def open(cls, path: Path, skills: Sequence[Skill], digest: str) -> SearchIndex | None:
        """The index saved at ``path`` for ``skills`` (``digest`` their
        :func:`catalog_digest`), or ``None`` when the file is missing, not safely
        ours, unreadable, or built from another catalog."""
        if not _owned_safely(path):
            return None
        try:
            disk = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        except sqlite3.Error:
            return None
        try:
            row = disk.execute("SELECT value FROM meta WHERE key = 'digest'").fetchone()
            if row is None or row[0] != digest:
                return None
            ordered = sorted(skills, key=_identity)
            count = disk.execute("SELECT count(*) FROM skills").fetchone()[0]
            if count != len(ordered):
                return None
            conn = sqlite3.connect(":memory:", check_same_thread=False)
            disk.backup(conn)
        except sqlite3.Error:
            return None
        finally:
            disk.close()
        return cls(conn, ordered, digest)

    def search(
        self, query: str, k: int = 5, *, include_hidden: bool = False, fields: bool = True
    ) -> list[SearchHit]:
        """The best ``k`` skills for ``query``: highest score first, ties by name.

        :param query: words in a user's language; common words are ignored.
        :param k: how many results at most (at least 1).
        :param include_hidden: also return hidden skills.
        :param fields: fill :attr:`SearchHit.matched` (costs about a millisecond).
        """
        terms = self._useful(query_terms(query))
        if not terms:
            return []
        want = max(1, k)
        limit = want if include_hidden else want + self._hidden
        found: list[tuple[int, SearchHit]] = []
        for rowid, score in self._ranked(terms, limit):
            skill = self._skills[rowid]
            if skill.hidden and not include_hidden:
                continue
            found.append((rowid, SearchHit(skill.name, score, (), skill)))
            if len(found) >= want:
                break
        if not found:
            return []
        if not fields:
            return [h for _r, h in found]
        matched = self._matched_fields(terms, [r for r, _h in found])
        return [attrs.evolve(h, matched=matched.get(r, ())) for r, h in found]

    def searched_terms(self, query: str) -> tuple[str, ...]:
        """The words of ``query`` that are actually searched (see :meth:`search`)."""
        return self._useful(query_terms(query))

    def explain(self, name: str, query: str, *, include_hidden: bool = False) -> SearchExplanation:
        """Where the skill ``name`` ranks for ``query``, its score and the terms each field matched.

        :raises KeyError: when no skill of that name is in the index.
        """
        if name not in self._by_name:
            raise KeyError(name)
        terms = self._useful(query_terms(query))
        rowid = self._by_name[name]
        fields: dict[str, tuple[str, ...]] = {}
        rank: int | None = None
        score: float | None = None
        of = 0
        if terms:
            ranked = [
                (r, s)
                for r, s in self._ranked(terms)
                if include_hidden or not self._skills[r].hidden or r == rowid
            ]
            of = len(ranked)
            for i, (r, s) in enumerate(ranked, 1):
                if r == rowid:
                    rank, score = i, s
                    break
            for field in FIELDS:
                found = tuple(t for t in terms if self._has(rowid, field, (t,)))
                fields[field] = found
        return SearchExplanation(name, query, terms, rank, score, of, fields)

    def _stem(self, words: Sequence[str]) -> dict[str, str | None]:
        """Each word's stem as the index spells it (``None``: no token), through the same
        tokenizer, memoised."""
        todo = [w for w in words if w not in self._stems]
        if todo:
            with self._lock:
                self._conn.execute("DELETE FROM temp.stem")
                self._conn.executemany(
                    "INSERT INTO temp.stem(rowid, w) VALUES (?, ?)", enumerate(todo)
                )
                rows = self._conn.execute("SELECT doc, term FROM temp.stem_v").fetchall()
            found: dict[int, str] = {}
            for doc, term in rows:
                found.setdefault(int(doc), term)
            if len(self._stems) > 100_000:
                self._stems.clear()
            for i, w in enumerate(todo):
                self._stems[w] = found.get(i)
        return {w: self._stems[w] for w in words}

    def _useful(self, terms: Sequence[str]) -> tuple[str, ...]:
        """The query words worth searching: those in the index, rarest first, without the
        ones in more than half the skills (they barely move BM25 and cost the most), at
        most :data:`SEARCHED_TERMS`; the order of the kept words is the query's."""
        if not terms:
            return ()
        stems = self._stem(terms)
        known = [(self._df.get(stems[t] or "", 0), i, t) for i, t in enumerate(terms)]
        known = [x for x in known if x[0] > 0]
        if not known:
            return ()
        common = len(self._skills) // 2
        rare = [x for x in known if x[0] <= common] or known
        kept = sorted(rare)[:SEARCHED_TERMS]
        return tuple(t for _df, _i, t in sorted(kept, key=lambda x: x[1]))

    def _ranked(self, terms: Sequence[str], limit: int = -1) -> list[tuple[int, float]]:
        """``(rowid, score)`` best first; ties by row, which is name order."""
        sql = "SELECT rowid, rank FROM skills WHERE skills MATCH ? ORDER BY rank, rowid LIMIT ?"
        with self._lock:
            rows = self._conn.execute(sql, (_match_expr(terms), limit)).fetchall()
        return [(int(r), round(-float(s), 6) + 0.0) for r, s in rows]

    def _has(self, rowid: int, field: str, terms: Sequence[str]) -> bool:
        sql = "SELECT 1 FROM skills WHERE skills MATCH ? AND rowid = ?"
        with self._lock:
            row = self._conn.execute(sql, (_match_expr(terms, field), rowid)).fetchone()
        return row is not None

    def _matched_fields(
        self, terms: Sequence[str], rowids: Sequence[int]
    ) -> dict[int, tuple[str, ...]]:
        """Which fields of each row hold a query word: FTS5's ``highlight()`` marks the
        matches in the short fields, one row at a time; for the body, which is long, one
        column-filtered query over all the rows says which of them match there."""
        short = [(i, f) for i, f in enumerate(FIELDS) if f != "body"]
        marks = ", ".join(f"highlight(skills, {i}, char(1), '')" for i, _f in short)
        sql = f"SELECT {marks} FROM skills WHERE skills MATCH ? AND rowid = ?"  # noqa: S608
        in_body = (
            "SELECT rowid FROM skills WHERE skills MATCH ? AND rowid IN "  # noqa: S608
            f"({', '.join('?' for _ in rowids)})"
        )
        expr = _match_expr(terms)
        out: dict[int, tuple[str, ...]] = {}
        with self._lock:
            body = {
                int(r)
                for (r,) in self._conn.execute(in_body, (_match_expr(terms, "body"), *rowids))
            }
            for rowid in rowids:
                row = self._conn.execute(sql, (expr, rowid)).fetchone() or ()
                found = {
                    f for (_i, f), text in zip(short, row, strict=False) if text and "\x01" in text
                }
                if rowid in body:
                    found.add("body")
                out[rowid] = tuple(f for f in FIELDS if f in found)
        return out


_TOKENIZE = "tokenize = 'porter unicode61 remove_diacritics 2'"
_DETAIL = ""


def _create(conn: sqlite3.Connection) -> None:
    columns = ", ".join(FIELDS)
    conn.execute(f"CREATE VIRTUAL TABLE skills USING fts5({columns}, {_TOKENIZE}{_DETAIL})")
    weights = ", ".join(str(WEIGHTS[f]) for f in FIELDS)
    conn.execute("INSERT INTO skills(skills, rank) VALUES ('rank', ?)", (f"bm25({weights})",))
    conn.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")


_memo: OrderedDict[str, SearchIndex] = OrderedDict()
#: The same indexes, keyed by the identities of the skill objects they were built from,
#: in the order the caller passed them (see :func:`index_for`).
_by_objects: OrderedDict[tuple[int, ...], tuple[tuple[Skill, ...], SearchIndex]] = OrderedDict()
#: The tuple of skills of the last call and its index (a tuple cannot change).
_last: tuple[tuple[Skill, ...], SearchIndex] | None = None
_memo_lock = threading.Lock()


def index_for(skills: Sequence[Skill], *, cache_dir: Path | None = None) -> SearchIndex:
    """The index of ``skills``: from this process's memo, else from ``cache_dir`` (when
    given, and the saved file is safely ours and of this catalog), else built (and saved
    to ``cache_dir``). Always equal to :meth:`SearchIndex.build` of ``skills``.

    The same skill objects again (a session searching its catalog once per tool call)
    find their index by identity, without the digest: a :class:`~skillpath.model.Skill`
    is frozen and reads its body once, so the same objects always index to the same
    rows, and the memo holds them, so their identities are not reused while it does. A
    reloaded catalog (new objects, as every reload and refresh gives) goes through the
    digest, which looks at each ``SKILL.md`` on disk. The very tuple of the last call
    (what :meth:`SkillSession.skills <skillpath.session.SkillSession.skills>` returns
    until the catalog changes) is recognised without even that."""
    global _last
    last = _last
    if last is not None and last[0] is skills:
        return last[1]
    ids = tuple(map(id, skills))
    with _memo_lock:
        known = _by_objects.get(ids)
        if known is not None:
            _by_objects.move_to_end(ids)
            if isinstance(skills, tuple):
                _last = (skills, known[1])
            return known[1]
    digest = catalog_digest(skills)
    with _memo_lock:
        hit = _memo.get(digest)
        if hit is not None:
            _memo.move_to_end(digest)
    index = hit
    path = cache_dir / f"{digest}.sqlite" if cache_dir is not None else None
    if index is None and path is not None:
        index = SearchIndex.open(path, skills, digest)
    if index is None:
        index = SearchIndex.build(skills, digest=digest)
        if path is not None:
            try:
                index.save(path)
            except (OSError, sqlite3.Error):
                pass  # a cache that cannot be written only costs the next run a rebuild
    with _memo_lock:
        _memo[digest] = index
        while len(_memo) > MEMO_SIZE:
            _memo.popitem(last=False)
        _by_objects[ids] = (tuple(skills), index)
        while len(_by_objects) > MEMO_SIZE:
            _by_objects.popitem(last=False)
        if isinstance(skills, tuple):
            _last = (skills, index)
    return index


def search_skills(
    catalog: LoadResult | Sequence[Skill],
    query: str,
    k: int = 5,
    *,
    include_hidden: bool = False,
    ctx: SkillContext | None = None,
    cache_dir: Path | None = None,
    diagnostics: list[Diagnostic] | None = None,
    host: PluginHost | None = None,
    fields: bool = True,
) -> list[SearchHit]:
    """Rank the skills of ``catalog`` against ``query`` and return the best ``k``.

    The one search the CLI, ``serve`` and every framework adapter use. With
    ``ctx``, the ``rank_skills`` hook of the installed plugins may re-rank the
    results (each implementation receives the previous ranking).

    :param catalog: a :class:`~skillpath.model.LoadResult` or its skills.
    :param query: what the user or the model is looking for, in words.
    :param k: how many results at most.
    :param include_hidden: also return hidden skills.
    :param ctx: the load context, for the ``rank_skills`` hook.
    :param cache_dir: where to keep the index between processes (none by default).
    :param diagnostics: where a failing ``rank_skills`` implementation is reported.
    :param host: the plugin host for the hook (default: the one :func:`load_skills` uses).
    :param fields: fill each hit's ``matched`` fields.
    """
    skills: Sequence[Skill] = catalog.skills if hasattr(catalog, "skills") else catalog
    k = max(1, int(k))
    index = index_for(skills, cache_dir=cache_dir)
    depth = k if ctx is None else max(k, min(50, 4 * k))
    hits = index.search(query, depth, include_hidden=include_hidden, fields=fields)
    if ctx is not None and hits:
        from skillpath.plugins import get_plugin_host

        diags = diagnostics if diagnostics is not None else []
        if host is None:
            host = get_plugin_host(
                ctx.env,
                blocked=ctx.settings.get("plugins", "blocked", ()),
                strict=True if ctx.settings.get("plugins", "strict") else None,
            )
        hits = host.rank(query, hits, ctx, diags)
    return hits[:k]


#: The name of the search tool every skillpath surface offers (MCP ``serve``, adapters).
SEARCH_TOOL_NAME = "search_skills"
#: Longest query a search tool accepts, in characters.
MAX_QUERY_CHARS = 1000
#: Most results a search tool returns.
MAX_TOOL_RESULTS = 20


def search_tool_schema() -> dict[str, Any]:
    """The ``search_skills`` tool: name, description and JSON Schema of its input
    (``query``: a string; ``k``: an integer from 1 to :data:`MAX_TOOL_RESULTS`, default 5)."""
    return {
        "name": SEARCH_TOOL_NAME,
        "description": (
            "Search this project's skills by what you need to do, when the skills list does "
            "not show one that fits: returns the best matching skills (name and "
            "description), best first. Then load one by name."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "A few words describing the task.",
                    "maxLength": MAX_QUERY_CHARS,
                },
                "k": {
                    "type": "integer",
                    "description": "How many skills to return (default 5).",
                    "minimum": 1,
                    "maximum": MAX_TOOL_RESULTS,
                },
            },
            "required": ["query"],
        },
    }


def run_search_tool(
    skills: Sequence[Skill],
    arguments: Mapping[str, Any] | Any,
    *,
    ctx: SkillContext | None = None,
    host: PluginHost | None = None,
) -> tuple[str, list[SearchHit] | None]:
    """Run a ``search_skills`` tool call with the model's ``arguments``, whatever they are.

    :returns: ``(text, hits)``: the model-facing text and the hits, or ``(message,
        None)`` when the arguments are not a query (the tool's error result). Hidden
        skills are never returned: a model cannot invoke them.
    """
    if not isinstance(arguments, Mapping):
        return "search_skills needs an object with a string 'query'", None
    query = arguments.get("query")
    k = arguments.get("k", 5)
    if not isinstance(query, str) or not query.strip():
        return "search_skills needs a non-empty string 'query'", None
    if len(query) > MAX_QUERY_CHARS:
        return (
            f"search_skills: query too long ({len(query)} characters, at most {MAX_QUERY_CHARS})",
            None,
        )
    if k is None:
        k = 5
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_TOOL_RESULTS:
        return f"search_skills: 'k' must be an integer from 1 to {MAX_TOOL_RESULTS}", None
    hits = search_skills(skills, query, k, ctx=ctx, host=host, fields=False)
    return format_hits(hits, query), hits


def format_hits(hits: Sequence[SearchHit], query: str) -> str:
    """The model-facing text of search results (what the ``search_skills`` tools return)."""
    if not hits:
        return (
            f"No skill matches {query!r}. Try other words, or read skill:// for every skill's name."
        )
    lines = [f"Skills matching {query[:200]!r}, best first:"]
    for hit in hits:
        desc = " ".join(strip_invisible(hit.skill.description or "")[0].split())
        lines.append(f"- {hit.name}: {desc}" if desc else f"- {hit.name}")
    return "\n".join(lines)
