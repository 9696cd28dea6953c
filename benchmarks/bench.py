#!/usr/bin/env python3
"""skillpath discovery benchmark (not a test): prints one table of timings and targets.

Run from the repository root (see ``benchmarks/README.md``)::

    python3 -m uv run python benchmarks/bench.py            # N = 100, 1,000, 10,000
    python3 -m uv run python benchmarks/bench.py --quick     # N = 100, 1,000: under a minute

What it does, in one run:

* generates deterministic (seeded) corpora of N skills, in two shapes
  (``--corpus``): ``default`` spreads them over the provider directories of a
  temporary home and project, with bad YAML, missing descriptions, symlinked
  duplicates, shadowed names, CRLF/BOM files, hidden and conditional skills
  mixed in; ``rich`` has the frontmatter of published skills (descriptions of
  100-300 characters, a quarter quoted or folded, a third with ``metadata``
  maps, ``allowed-tools`` lists, Claude Code fields, ``hooks``; bodies of
  2-20 KB) in four roots of N/4 each;
* times whole processes (a new process per run; median, min and max of
  ``--runs`` runs after one untimed warm-up run, so the page cache is warm) of
  ``skillpath list --json`` (the installed console script, with ``HOME``,
  ``XDG_CACHE_HOME`` … pointing into the corpus) cold (index off; its runs
  alternate with those of baseline (b), so a change in the machine's load hits
  both), from an empty cache (index built), and warm (index populated);
* in the same run the baselines: (a) a minimal script that walks the roots and
  reads every ``SKILL.md``; (b) a minimal script that reads the first 4 KB of
  each ``SKILL.md`` and parses the frontmatter with pyyaml's C loader;
  (c) ``skills-ref`` (PyPI) reading the same skills; (d) LangChain
  ``deepagents``' skills loader on the same roots — (c) and (d) installed by
  this script into their own virtual environments under ``--venv-dir``
  (skipped with a note when installation fails);
* peak RSS of every process (``os.wait4``);
* start-up: ``import skillpath`` and ``skillpath list`` on an empty project
  (without replay, and replayed)
  against ``python -c "import yaml, pluggy, attrs, pathspec"``;
* in-process: rendering a budgeted listing of 10,000 skills
  (``skillpath.listing.render_listing``), what the budget policy keeps of
  3,000 skills of a realistic mix (``--listing-only`` prints just that row,
  in seconds), and activating 1,000 conditional
  skills against 10,000 paths (``SkillSession.activate_for_paths``), each
  ``n/a`` when that API is not installed;
* the ratios against the baselines, with the targets of the performance issue
  and PASS/FAIL.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SEED = 20261130
MB = 1024 * 1024

#: (base, relative root, weight): where the corpus puts skills.
ROOTS: list[tuple[str, str, int]] = [
    ("project", ".skillpath/skills", 20),
    ("project", ".claude/skills", 18),
    ("project", ".agents/skills", 10),
    ("project", ".github/skills", 5),
    ("project", ".opencode/skills", 4),
    ("home", ".skillpath/skills", 12),
    ("home", ".claude/skills", 12),
    ("home", ".agents/skills", 8),
    ("home", ".codex/skills", 7),
    ("home", ".config/opencode/skills", 4),
]

WORDS = [
    "review",
    "refactor",
    "deploy",
    "test",
    "lint",
    "format",
    "migrate",
    "schema",
    "query",
    "index",
    "cache",
    "build",
    "release",
    "changelog",
    "commit",
    "branch",
    "merge",
    "rebase",
    "docker",
    "kubernetes",
    "terraform",
    "python",
    "rust",
    "typescript",
    "react",
    "django",
    "flask",
    "fastapi",
    "sql",
    "postgres",
    "sqlite",
    "redis",
    "kafka",
    "queue",
    "worker",
    "pdf",
    "table",
    "chart",
    "report",
    "excel",
    "csv",
    "json",
    "yaml",
    "toml",
    "markdown",
    "docs",
    "api",
    "client",
    "server",
    "auth",
    "token",
    "secret",
    "vault",
    "audit",
    "security",
    "performance",
    "profile",
    "trace",
    "log",
    "metric",
    "alert",
    "incident",
    "oncall",
    "runbook",
    "design",
    "spec",
    "plan",
    "estimate",
    "triage",
    "label",
    "issue",
    "ticket",
    "sprint",
    "backlog",
    "translate",
    "summarise",
    "explain",
    "document",
    "diagram",
    "image",
    "video",
    "audio",
    "speech",
    "model",
    "prompt",
]

BASELINE_A = """\
import os, sys
n = 0
size = 0
for root in sys.argv[1:]:
    try:
        names = os.listdir(root)
    except OSError:
        continue
    for name in names:
        if name.startswith("."):
            continue
        try:
            with open(os.path.join(root, name, "SKILL.md"), "rb") as f:
                size += len(f.read())
        except OSError:
            continue
        n += 1
print(n, size)
"""

BASELINE_B = """\
import os, sys
import yaml
Loader = yaml.CSafeLoader
found = []
for root in sys.argv[1:]:
    try:
        names = os.listdir(root)
    except OSError:
        continue
    for name in names:
        if name.startswith("."):
            continue
        path = os.path.join(root, name, "SKILL.md")
        try:
            with open(path, "rb") as f:
                head = f.read(4096)
        except OSError:
            continue
        text = head.decode("utf-8", "replace").lstrip("\\ufeff").replace("\\r\\n", "\\n")
        if not text.startswith("---"):
            continue
        end = text.find("\\n---", 3)
        if end < 0:
            continue
        try:
            data = yaml.load(text[3:end], Loader=Loader)
        except yaml.YAMLError:
            continue
        if isinstance(data, dict):
            found.append((data.get("name") or name, data.get("description"), path))
print(len(found))
"""

BASELINE_C = """\
import os, sys
from pathlib import Path
from skills_ref import read_properties
from skills_ref.errors import SkillError
found = []
for root in sys.argv[1:]:
    try:
        names = sorted(os.listdir(root))
    except OSError:
        continue
    for name in names:
        if name.startswith("."):
            continue
        try:
            found.append(read_properties(Path(root, name)))
        except (SkillError, OSError, UnicodeDecodeError):
            continue
print(len(found))
"""

BASELINE_D = """\
import sys
from deepagents.backends.filesystem import FilesystemBackend
from deepagents.middleware.skills import SkillsMiddleware
mw = SkillsMiddleware(
    backend=FilesystemBackend(root_dir="/", virtual_mode=False),
    sources=[r.rstrip("/") + "/" for r in sys.argv[1:]],
    system_prompt=None,
)
update = mw.before_agent({}, None, None)
print(len(update["skills_metadata"]))
"""

BARE_IMPORT = "import yaml, pluggy, attrs, pathspec"

INPROC = """\
import json, os, sys, time, inspect
from pathlib import Path
from skillpath import SkillSource, build_skill

POLICY_N = 3000
SEED = 20261130

def listing_policy(n=POLICY_N, seed=SEED):
    # What the default budget keeps of n skills of a realistic mix: 10% written by
    # the user or the project (careful descriptions, 150-400 characters), 60%
    # packaged (skill packs: 80-200 characters), 30% generated (auto-learned
    # one-liners, 25-60 characters); names of up to 30 characters. Counts: listed
    # with a description, by name only, left out, and how many of the user's own
    # skills kept their description.
    import random
    from skillpath import Frontmatter, Skill
    from skillpath.listing import render_listing

    rng = random.Random(seed)
    words = ("review", "deploy", "table", "report", "format", "check", "build", "test",
             "query", "schema", "migrate", "audit", "draft", "summarise", "convert")
    kinds = [("own", SkillSource("native", "project", Path("/p")), 150, 400)] * 10
    kinds += [("packaged", SkillSource("packs", "package", None, "pack"), 80, 200)] * 60
    kinds += [("generated", SkillSource("managed", "user", Path("/m")), 25, 60)] * 30
    skills = []
    for i in range(n):
        kind, source, lo, hi = kinds[rng.randrange(len(kinds))]
        stem = "-".join(rng.choice(words) for _ in range(rng.randint(1, 3)))
        name = f"{stem}-{i}"[:30]
        size = rng.randint(lo, hi)
        desc = ""
        while len(desc) < size:
            desc += " ".join(rng.choice(words) for _ in range(rng.randint(4, 12))).capitalize()
            desc += ". "
        skills.append((kind, Skill(name=name, description=desc.strip(), path=None,
                                   base_dir=None, source=source, priority=100,
                                   frontmatter=Frontmatter())))
    listing = render_listing([s for _, s in skills])
    rep = listing.report
    bare = set(getattr(rep, "names_only", ()))
    gone = set(rep.dropped)
    own = [s.name for kind, s in skills if kind == "own"]
    return {
        "n": n,
        "budget": rep.budget,
        "chars": len(listing.text),
        "described": rep.listed - len(bare),
        "names_only": len(bare),
        "dropped": len(gone),
        "own": len(own),
        "own_described": sum(1 for x in own if x not in bare and x not in gone),
        "own_listed": sum(1 for x in own if x not in gone),
    }

if sys.argv[1:] == ["--policy"]:
    print(json.dumps({"policy": listing_policy()}))
    sys.exit(0)

def best(fn, runs=5):
    times = []
    out = None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), sorted(times)[len(times) // 2], out

result = {}
src = SkillSource("native", "project", Path("/corpus"))

def make(i, paths=()):
    data = {"name": f"skill-{i:05d}",
            "description": f"Skill {i}: " + " ".join(["does things"] * (1 + i % 20)) + "."}
    if paths:
        data["paths"] = list(paths)
    skill, _ = build_skill(data, default_name=data["name"], source=src, priority=100,
                           path=Path(f"/corpus/skill-{i:05d}/SKILL.md"),
                           base_dir=Path(f"/corpus/skill-{i:05d}"), require_description=True)
    return skill

skills = [make(i) for i in range(10_000)]
try:
    from skillpath.listing import render_listing
except ImportError as exc:
    result["render"] = {"na": f"skillpath.listing.render_listing not installed ({exc})"}
else:
    try:
        sig = inspect.signature(render_listing)
        kw = {"budget": 8000} if "budget" in sig.parameters else {}
        t_min, t_med, out = best(lambda: render_listing(skills, **kw))
        text = getattr(out, "text", out)
        result["render"] = {"min": t_min, "median": t_med,
                            "chars": len(text) if isinstance(text, str) else None}
    except Exception as exc:
        result["render"] = {"na": f"render_listing failed: {exc!r}"}

try:
    from skillpath.session import SkillSession
except ImportError as exc:
    result["activate"] = {"na": f"skillpath.session.SkillSession not installed ({exc})"}
else:
    try:
        exts = ["py", "ts", "md", "rs", "go", "sql", "yaml", "json"]
        cond = [make(i, [f"pkg{i % 50}/**/*.{exts[i % len(exts)]}", f"docs/area{i}/**"])
                for i in range(1000)]
        paths = [f"pkg{i % 97}/sub{i % 13}/file{i}.{exts[i % 7]}" for i in range(10_000)]
        cwd = Path(sys.argv[1])

        from skillpath import LoadResult, get_plugin_host, make_context

        ctx, _ = make_context(cwd)
        host = get_plugin_host(ctx.env)

        def activate():
            session = SkillSession(
                ctx=ctx, host=host, result=LoadResult(conditional=tuple(cond)), session_id="b"
            )
            return session.activate_for_paths(paths)

        t_min, t_med, out = best(activate, runs=3)
        result["activate"] = {"min": t_min, "median": t_med, "activated": len(out)}
    except Exception as exc:
        result["activate"] = {"na": f"activate_for_paths failed: {exc!r}"}
result["policy"] = listing_policy()
print(json.dumps(result))
"""


# --------------------------------------------------------------------------- corpus


def _sentence(rng: random.Random, lo: int, hi: int) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(lo, hi))]
    return " ".join(words).capitalize()


def _body(rng: random.Random, size: int) -> str:
    parts = [f"# {_sentence(rng, 2, 5)}\n"]
    total = len(parts[0])
    while total < size:
        kind = rng.random()
        if kind < 0.15:
            block = f"\n## {_sentence(rng, 2, 4)}\n"
        elif kind < 0.3:
            block = "\n" + "\n".join(f"- {_sentence(rng, 3, 9)}" for _ in range(4)) + "\n"
        elif kind < 0.38:
            block = "\n```sh\n" + f"{rng.choice(WORDS)} --{rng.choice(WORDS)} .\n" + "```\n"
        else:
            block = "\n" + ". ".join(_sentence(rng, 6, 16) for _ in range(3)) + ".\n"
        parts.append(block)
        total += len(block)
    return "".join(parts)


def _skill_text(rng: random.Random, name: str, kind: str) -> str:
    size = int(min(60_000, rng.lognormvariate(8.0, 0.8)))  # median about 3 KB
    if rng.random() < 0.02:
        size = rng.randint(20_000, 60_000)
    body = _body(rng, max(200, size))
    desc = _sentence(rng, 8, 40) + ". Use when " + _sentence(rng, 3, 10).lower() + "."
    lines = ["---"]
    if kind == "bad-yaml":
        lines += [f"name: {name}", f'description: "{desc}', "tags: [broken, yaml"]
    elif kind == "no-description":
        lines += [f"name: {name}"]
    elif kind == "no-frontmatter":
        return body
    else:
        lines.append(f"name: {name}")
        if kind == "colon":
            lines.append(f"description: Use when: {desc}")
        elif rng.random() < 0.3:
            lines.append("description: >-")
            lines += ["  " + line for line in textwrap.wrap(desc, 70)]
        else:
            lines.append(f"description: {json.dumps(desc)}")
        if rng.random() < 0.2:
            lines.append("allowed-tools: Read Grep Bash(git:*)")
        if rng.random() < 0.15:
            lines += ["metadata:", f"  author: {rng.choice(WORDS)}", '  version: "1.0"']
        if rng.random() < 0.1:
            lines.append("license: MIT")
        if kind == "hidden":
            lines.append("disable-model-invocation: true")
        if kind == "conditional":
            lines.append(f'paths: ["src/{rng.choice(WORDS)}/**/*.py"]')
    lines.append("---")
    return "\n".join(lines) + "\n\n" + body


def make_corpus(base: Path, n: int, seed: int = SEED) -> dict[str, Any]:
    """Create a deterministic corpus of ``n`` skill entries under ``base``.

    Returns a manifest: ``home``, ``project``, ``roots`` (every root, existing
    or not) and counts of each special kind.
    """
    rng = random.Random(seed + n)
    home = base / "home"
    project = home / "work" / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    roots = []
    weights = []
    for where, rel, weight in ROOTS:
        root = (project if where == "project" else home) / rel
        root.mkdir(parents=True, exist_ok=True)
        roots.append(root)
        weights.append(weight)
    counts: dict[str, int] = {}
    placed: list[tuple[Path, str]] = []  # (skill dir, name)
    i = 0
    entries = 0
    while entries < n:
        roll = rng.random()
        root = rng.choices(roots, weights)[0]
        if roll < 0.01 and placed:
            # a symlinked duplicate: the same skill dir reached from another root
            target, name = rng.choice(placed)
            other = rng.choice([r for r in roots if r != target.parent])
            link = other / name
            if not link.exists() and not link.is_symlink():
                link.symlink_to(target, target_is_directory=True)
                counts["symlinked-duplicate"] = counts.get("symlinked-duplicate", 0) + 1
                entries += 1
            continue
        if roll < 0.04 and placed:
            # a shadowed name: a different file with an existing skill's name
            _target, name = rng.choice(placed)
            kind = "shadowed"
        else:
            name = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{i:05d}"
            i += 1
            r = rng.random()
            kind = (
                "bad-yaml"
                if r < 0.02
                else "no-description"
                if r < 0.04
                else "no-frontmatter"
                if r < 0.045
                else "hidden"
                if r < 0.065
                else "conditional"
                if r < 0.085
                else "colon"
                if r < 0.095
                else "crlf"
                if r < 0.105
                else "bom"
                if r < 0.11
                else "ok"
            )
        folder = root / name
        if folder.exists() or folder.is_symlink():
            continue
        folder.mkdir()
        text = _skill_text(rng, name, kind)
        raw = text.encode("utf-8")
        if kind == "crlf":
            raw = raw.replace(b"\n", b"\r\n")
        elif kind == "bom":
            raw = b"\xef\xbb\xbf" + raw
        (folder / "SKILL.md").write_bytes(raw)
        if rng.random() < 0.1:
            (folder / "reference.md").write_text(_body(rng, 500))
        counts[kind] = counts.get(kind, 0) + 1
        placed.append((folder, name))
        entries += 1
    manifest = {
        "n": n,
        "home": str(home),
        "project": str(project),
        "roots": [str(r) for r in roots],
        "counts": counts,
    }
    (base / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return manifest


# ----------------------------------------------------------------- rich corpus

#: The rich shape's roots: four roots, an equal share of the skills each.
RICH_ROOTS: list[tuple[str, str]] = [
    ("project", ".claude/skills"),
    ("project", ".agents/skills"),
    ("home", ".claude/skills"),
    ("home", ".skillpath/skills"),
]

_TOOLS = [
    "Read",
    "Grep",
    "Glob",
    "Edit",
    "Write",
    "Bash",
    "Task",
    "WebFetch",
    "Bash(git status:*)",
    "Bash(git diff:*)",
    "Bash(npm run test:*)",
    "mcp__github__create_issue",
    "mcp__sentry__search_issues",
]
_MODELS = ["sonnet", "opus", "haiku", "inherit", "claude-sonnet-4-5"]
_HOOK_EVENTS = ["PreToolUse", "PostToolUse", "Stop"]


def _rich_description(rng: random.Random) -> str:
    """100-300 characters of prose with the punctuation real descriptions have."""
    target = rng.randint(100, 300)
    parts: list[str] = []
    total = 0
    while total < target:
        roll = rng.random()
        if roll < 0.15:
            part = f"({rng.choice(WORDS)}, {rng.choice(WORDS)}, {rng.choice(WORDS)})"
        elif roll < 0.3:
            part = f"Use when {_sentence(rng, 3, 8).lower()}."
        elif roll < 0.4:
            ext = rng.choice(WORDS)[:3]
            part = f"{rng.choice(WORDS).upper()} files, e.g. {rng.choice(WORDS)}.{ext}"
        elif roll < 0.45:
            part = f"the user's {rng.choice(WORDS)} {rng.choice(WORDS)}"
        else:
            part = _sentence(rng, 3, 9) + rng.choice([".", ",", ";", " -", ""])
        parts.append(part)
        total += len(part) + 1
    text = " ".join(parts)[:target].rstrip(" ,;-.(")
    text = text.replace("(", "").replace(")", "") if text.count("(") != text.count(")") else text
    return text + "."


def _rich_description_lines(rng: random.Random, desc: str) -> list[str]:
    roll = rng.random()
    if roll < 0.1:
        return [f"description: {json.dumps(desc)}"]
    if roll < 0.15:
        return ["description: '" + desc.replace("'", "''") + "'"]
    if roll < 0.25:
        return ["description: >-", *("  " + line for line in textwrap.wrap(desc, 76))]
    if roll < 0.28:
        return ["description: |", *("  " + line for line in textwrap.wrap(desc, 76))]
    if ": " in desc or " #" in desc or desc[0] in "-?:,[]{}#&*!|>'\"%@`" or desc[0].isdigit():
        return [f"description: {json.dumps(desc)}"]
    return [f"description: {desc}"]


def _rich_metadata(rng: random.Random) -> list[str]:
    lines = ["metadata:", f"  author: {_sentence(rng, 1, 3)}"]
    roll = rng.random()
    if roll < 0.4:
        lines.append(f'  version: "{rng.randint(0, 3)}.{rng.randint(0, 20)}"')
    elif roll < 0.7:
        lines.append(f"  version: {rng.randint(0, 3)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}")
    else:
        lines.append(f"  version: {rng.randint(1, 9)}")
    if rng.random() < 0.3:
        lines.append(f"  last_updated: 2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}")
    if rng.random() < 0.5:
        lines.append(f"  category: {rng.choice(WORDS)}")
    roll = rng.random()
    if roll < 0.3:
        lines.append("  tags: [" + ", ".join(rng.sample(WORDS, rng.randint(2, 5))) + "]")
    elif roll < 0.5:
        lines.append("  keywords:")
        lines += [f"    - {w}" for w in rng.sample(WORDS, rng.randint(3, 12))]
    if rng.random() < 0.15:
        lines += ["  requires:", f"    bins: [{rng.choice(WORDS)}]", "    env: []"]
    return lines


def _rich_skill_text(rng: random.Random, name: str) -> str:
    """A ``SKILL.md`` with the frontmatter of real published skills."""
    lines = ["---", f"name: {name}"]
    lines += _rich_description_lines(rng, _rich_description(rng))
    if rng.random() < 0.3:
        lines.append(rng.choice(["license: MIT", "license: Apache-2.0", "license: LICENSE.txt"]))
    roll = rng.random()
    if roll < 0.15:
        lines.append("allowed-tools:")
        lines += [f"  - {t}" for t in rng.sample(_TOOLS, rng.randint(2, 6))]
    elif roll < 0.3:
        lines.append("allowed-tools: " + ", ".join(rng.sample(_TOOLS[:8], rng.randint(2, 5))))
    elif roll < 0.4:
        lines.append("allowed-tools: " + " ".join(rng.sample(_TOOLS[:8], rng.randint(2, 5))))
    if rng.random() < 0.33:
        lines += _rich_metadata(rng)
    if rng.random() < 0.15:
        if rng.random() < 0.3:  # unquoted, as documented: YAML reads a one-item list
            lines.append(f"argument-hint: [{rng.choice(WORDS)}-name]")
        else:
            hint = f"[{rng.choice(WORDS)}-name] [--{rng.choice(WORDS)}]"
            lines.append(f'argument-hint: "{hint}"')
    if rng.random() < 0.1:
        lines.append(f"model: {rng.choice(_MODELS)}")
    if rng.random() < 0.12:
        lines.append(f"disable-model-invocation: {rng.choice(['true', 'false'])}")
    if rng.random() < 0.08:
        lines.append(f"user-invocable: {rng.choice(['true', 'false'])}")
    if rng.random() < 0.05:
        lines.append(f"context: fork\nagent: {rng.choice(['Explore', 'Plan', 'general-purpose'])}")
    if rng.random() < 0.08:
        lines.append("paths:")
        lines += [
            f'  - "{rng.choice(["src", "lib", "app"])}/**/*.{rng.choice(["py", "ts", "sql"])}"'
            for _ in range(rng.randint(1, 3))
        ]
    if rng.random() < 0.05:
        lines += ["hooks:", f"  {rng.choice(_HOOK_EVENTS)}:", '    - matcher: "Bash"']
        lines += ["      hooks:", "        - type: command"]
        lines.append(f'          command: "./scripts/{rng.choice(WORDS)}.sh"')
    if rng.random() < 0.05:
        lines.append(f"compatibility: Requires {rng.choice(WORDS)} and network access")
    lines.append("---")
    return "\n".join(lines) + "\n\n" + _body(rng, rng.randint(2048, 20480))


def make_rich_corpus(base: Path, n: int, seed: int = SEED) -> dict[str, Any]:
    """Create the rich corpus: ``n`` skills in four roots of ``n / 4`` each.

    Every skill is valid, with the frontmatter of published skills (see
    ``benchmarks/README.md``); returns the same manifest as :func:`make_corpus`.
    """
    rng = random.Random(seed * 7 + n)
    home = base / "home"
    project = home / "work" / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    roots = [(project if where == "project" else home) / rel for where, rel in RICH_ROOTS]
    # the other provider roots exist, empty, as in the default shape
    for where, rel, _w in ROOTS:
        ((project if where == "project" else home) / rel).mkdir(parents=True, exist_ok=True)
    for k in range(n):
        root = roots[k * len(roots) // n]
        name = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{k:05d}"
        folder = root / name
        folder.mkdir()
        (folder / "SKILL.md").write_text(_rich_skill_text(rng, name))
        if rng.random() < 0.2:
            (folder / "reference.md").write_text(_body(rng, 1500))
    all_roots = [(project if w == "project" else home) / rel for w, rel, _ in ROOTS]
    manifest = {
        "n": n,
        "home": str(home),
        "project": str(project),
        "roots": [str(r) for r in all_roots],
        "counts": {"rich": n},
    }
    (base / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return manifest


# ----------------------------------------------------------- realistic corpus

#: Where the realistic shape's symlinked folders really live (not skills roots):
#: ``npx skills`` keeps one copy and links it into each agent's folder.
REAL_STORES = {"project": "vendor/skills", "home": ".local/share/skills"}


def make_realistic_corpus(base: Path, n: int, seed: int = SEED) -> dict[str, Any]:
    """Create the realistic corpus: the rich shape's roots and frontmatter, with 5% of
    the skill folders symlinks and 3% broken files.

    Of the symlinked folders, three in five are relative links to a folder kept
    outside every skills root (``.agents/skills/x -> ../../vendor/skills/x``, as
    ``npx skills`` installs them), two in five link to a folder of another root
    (the same skill reached twice, as installing for several agents does). The
    broken files are a third each bad YAML, no description, and a ``name`` that is
    not the folder's. Returns the same manifest as :func:`make_corpus`.
    """
    rng = random.Random(seed * 11 + n)
    home = base / "home"
    project = home / "work" / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    where_of = {}
    roots = []
    for where, rel in RICH_ROOTS:
        root = (project if where == "project" else home) / rel
        roots.append(root)
        where_of[root] = where
    for where, rel, _w in ROOTS:
        ((project if where == "project" else home) / rel).mkdir(parents=True, exist_ok=True)
    stores = {w: (project if w == "project" else home) / rel for w, rel in REAL_STORES.items()}
    for store in stores.values():
        store.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    placed: dict[Path, list[Path]] = {}  # root: the valid folders it holds (or links to)
    for k in range(n):
        root = roots[(k * 7) % len(roots)]
        name = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{k:05d}"
        # the kinds fall on fixed places in every hundred, so even a small corpus has each
        slot = k % 100
        # (a project's link leaving the project is refused: link within one side)
        others = [r for r in roots if r != root and where_of[r] == where_of[root] and placed.get(r)]
        if slot in (15, 65) and others:
            # the same skill reached from another root (installed for two agents)
            target = rng.choice(placed[rng.choice(others)])
            if (root / target.name).is_symlink():
                continue
            (root / target.name).symlink_to(os.path.relpath(target, root), True)
            counts["symlink-to-other-root"] = counts.get("symlink-to-other-root", 0) + 1
            continue
        folder = root / name
        if slot in (5, 35, 85):
            store = stores[where_of[root]]
            folder = store / name
            (root / name).symlink_to(os.path.relpath(folder, root), True)
            kind = "symlink-to-store"
        else:
            kind = "ok"
        folder.mkdir()
        text = _rich_skill_text(rng, name)
        if slot == 13:
            text = text.replace("\ndescription:", "\ndescription: [unclosed\nsummary:", 1)
            kind = "bad-yaml"
        elif slot == 47:
            head, _sep, rest = text.partition("\n---\n")
            lines = [ln for ln in head.split("\n") if not ln.startswith(("description", "  "))]
            text = "\n".join(lines) + "\n---\n" + rest
            kind = "no-description"
        elif slot == 81:
            text = text.replace(f"name: {name}", f"name: {name}-renamed", 1)
            kind = "name-not-folder"
        (folder / "SKILL.md").write_text(text)
        if rng.random() < 0.2:
            (folder / "reference.md").write_text(_body(rng, 1500))
        counts[kind] = counts.get(kind, 0) + 1
        if kind not in ("bad-yaml", "no-description", "name-not-folder"):
            placed.setdefault(root, []).append(folder)
    all_roots = [(project if w == "project" else home) / rel for w, rel, _ in ROOTS]
    manifest = {
        "n": n,
        "home": str(home),
        "project": str(project),
        "roots": [str(r) for r in all_roots],
        "counts": counts,
    }
    (base / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return manifest


#: Each corpus shape's generator.
SHAPES = {"default": make_corpus, "rich": make_rich_corpus, "realistic": make_realistic_corpus}


# --------------------------------------------------------------------------- running


#: GNU time reports the peak RSS of the command alone. A child's ``ru_maxrss``
#: from ``wait4`` also counts the memory it had before ``exec`` — a copy of
#: this (larger) process — so it is only the fallback.
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


#: Processor time (user + system, seconds) of the last :func:`run_once` command,
#: its children included once they were waited for (skillpath's worker is).
LAST_CPU = [0.0]


def run_once(
    argv: Sequence[str], *, env: dict[str, str], cwd: str, out: Path | None = None
) -> tuple[float, int, int]:
    """Run ``argv`` once; return (wall seconds, peak RSS bytes, exit status); its
    processor time is left in :data:`LAST_CPU`."""
    stdout = open(out, "wb") if out is not None else subprocess.DEVNULL  # noqa: SIM115
    rss_file = None
    if TIME is not None:
        fd, rss_file = tempfile.mkstemp(prefix="bench-rss-")
        os.close(fd)
        argv = [TIME, "-q", "-f", "%M", "-o", rss_file, *argv]
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=stdout, stderr=subprocess.DEVNULL)
        _pid, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        LAST_CPU[0] = usage.ru_utime + usage.ru_stime
        proc.returncode = os.waitstatus_to_exitcode(status)
        rss = usage.ru_maxrss * 1024
        if rss_file is not None:
            with contextlib.suppress(OSError, ValueError):
                rss = int(Path(rss_file).read_text().split()[-1]) * 1024
    finally:
        if out is not None:
            stdout.close()  # type: ignore[union-attr]
        if rss_file is not None:
            with contextlib.suppress(OSError):
                os.unlink(rss_file)
    return elapsed, rss, proc.returncode


class Measure:
    """Median/min/max of several runs of one command, plus the peak RSS."""

    def __init__(
        self,
        label: str,
        times: list[float],
        rss: int,
        note: str = "",
        cpu: list[float] | None = None,
    ) -> None:
        self.label = label
        self.times = times
        self.rss = rss
        self.note = note
        #: processor time of each timed run (measure_pair records it)
        self.cpu = cpu or []

    @property
    def median(self) -> float:
        return statistics.median(self.times) if self.times else float("nan")

    @property
    def ok(self) -> bool:
        return bool(self.times)


#: The discovery index's racy window in seconds (skillpath.index.RACY_WINDOW_NS).
RACY_S = 2.1


def measure(
    label: str,
    argv: Sequence[str],
    *,
    env: dict[str, str],
    cwd: str,
    runs: int,
    before: Any = None,
    warmup: bool = True,
) -> Measure:
    """Time ``runs`` fresh processes of ``argv`` (after an untimed warm-up run)."""
    times: list[float] = []
    cpu: list[float] = []
    rss = 0
    if warmup:
        if before is not None:
            before()
        _t, _r, code = run_once(argv, env=env, cwd=cwd)
        if code != 0:
            return Measure(label, [], 0, f"exit status {code}")
    for _ in range(runs):
        if before is not None:
            before()
        t, r, code = run_once(argv, env=env, cwd=cwd)
        if code != 0:
            return Measure(label, [], 0, f"exit status {code}")
        times.append(t)
        cpu.append(LAST_CPU[0])
        rss = max(rss, r)
    return Measure(label, times, rss, cpu=cpu)


def measure_pair(
    first: tuple[str, Sequence[str], dict[str, str]],
    second: tuple[str, Sequence[str], dict[str, str]],
    *,
    cwd: str,
    runs: int,
) -> tuple[Measure, Measure]:
    """Time two commands in alternation (one untimed warm-up round, then ``runs``
    rounds): a change in the machine's load hits both alike."""
    out = []
    times: list[list[float]] = [[], []]
    cpu: list[list[float]] = [[], []]
    rss = [0, 0]
    failed = ["", ""]
    for r in range(runs + 1):
        for k, (_label, argv, env) in enumerate((first, second)):
            if failed[k]:
                continue
            t, peak, code = run_once(argv, env=env, cwd=cwd)
            if code != 0:
                failed[k] = f"exit status {code}"
            elif r:
                times[k].append(t)
                cpu[k].append(LAST_CPU[0])
                rss[k] = max(rss[k], peak)
    for k, (label, _argv, _env) in enumerate((first, second)):
        if failed[k]:
            out.append(Measure(label, [], 0, failed[k]))
        else:
            out.append(Measure(label, times[k], rss[k], cpu=cpu[k]))
    return out[0], out[1]


def corpus_env(manifest: dict[str, Any], cache: Path) -> dict[str, str]:
    """A clean environment whose home, config and cache live in the corpus."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SKILLPATH_", "XDG_", "CLAUDE_", "CODEX_", "PYTHON"))
        and k not in ("VIRTUAL_ENV",)
    }
    home = manifest["home"]
    env.update(
        HOME=home,
        XDG_CACHE_HOME=str(cache),
        XDG_CONFIG_HOME=os.path.join(home, ".config"),
        XDG_DATA_HOME=os.path.join(home, ".local", "share"),
    )
    return env


# --------------------------------------------------------------------------- venvs


def _uv() -> list[str] | None:
    found = shutil.which("uv")
    if found:
        return [found]
    for py in (sys.executable, shutil.which("python3") or ""):
        if (
            py
            and subprocess.run([py, "-m", "uv", "--version"], capture_output=True).returncode == 0
        ):
            return [py, "-m", "uv"]
    return None


def ensure_venv(venv_dir: Path, name: str, requirement: str, probe: str) -> tuple[Path | None, str]:
    """A venv with ``requirement`` installed (cached); ``(python, note)``."""
    target = venv_dir / name
    py = target / "bin" / "python"
    if py.exists() and subprocess.run([py, "-c", probe], capture_output=True).returncode == 0:
        return py, _version(py, requirement)
    shutil.rmtree(target, ignore_errors=True)
    venv_dir.mkdir(parents=True, exist_ok=True)
    uv = _uv()
    try:
        if uv is not None:
            cmds = [
                [*uv, "venv", "-q", "--python", sys.executable, str(target)],
                [*uv, "pip", "install", "-q", "--python", str(py), requirement],
            ]
        else:
            cmds = [
                [sys.executable, "-m", "venv", str(target)],
                [str(py), "-m", "pip", "install", "-q", requirement],
            ]
        for cmd in cmds:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
            if proc.returncode != 0:
                tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["?"]
                return None, f"installing {requirement} failed: {tail[0]}"
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"installing {requirement} failed: {exc}"
    if subprocess.run([py, "-c", probe], capture_output=True).returncode != 0:
        return None, f"{requirement} installed but `{probe}` fails"
    return py, _version(py, requirement)


def _version(py: Path, dist: str) -> str:
    proc = subprocess.run(
        [py, "-c", f"import importlib.metadata as m; print(m.version({dist!r}))"],
        capture_output=True,
        text=True,
    )
    return f"{dist} {proc.stdout.strip() or '?'}"


# --------------------------------------------------------------------------- report


def fmt_t(m: Measure) -> str:
    if not m.ok:
        return f"n/a ({m.note})" if m.note else "n/a"
    return f"{m.median * 1000:8.0f} ms  [{min(m.times) * 1000:.0f}-{max(m.times) * 1000:.0f}]"


def fmt_cpu(m: Measure) -> str:
    return f"{statistics.median(m.cpu) * 1000:8.0f} ms" if m.ok and m.cpu else ""


def fmt_rss(m: Measure) -> str:
    return f"{m.rss / MB:5.1f} MB" if m.ok else ""


def verdict(value: float | None, limit: float) -> str:
    if value is None or value != value:
        return "n/a"
    return "PASS" if value <= limit else "FAIL"


def policy_row(p: dict[str, Any]) -> str:
    """The listing-policy row: what the default budget keeps of 3,000 skills."""
    return (
        f"listing policy, {p['n']:,} skills at the default budget ({p['budget']:,} chars, "
        f"{p['chars']:,} used): {p['described']:,} listed with description, "
        f"{p['names_only']:,} names only, {p['dropped']:,} dropped; of the {p['own']:,} "
        f"skills the user or project wrote: {p['own_listed']:,} listed, "
        f"{p['own_described']:,} with description"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: parse arguments, run everything, print the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="100,1000,10000", help="comma-separated corpus sizes")
    p.add_argument("--max-n", type=int, default=None, help="drop sizes above this")
    p.add_argument("--runs", type=int, default=5, help="timed runs per command (default 5)")
    p.add_argument("--skillpath", default=None, help="the skillpath console script to time")
    p.add_argument(
        "--venv-dir",
        default=os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
            "skillpath-bench",
        ),
        help="where the skills-ref and deepagents venvs are kept",
    )
    p.add_argument("--no-external", action="store_true", help="skip skills-ref and deepagents")
    p.add_argument("--keep", action="store_true", help="keep the corpus directories")
    p.add_argument("--inproc", default=None, help=argparse.SUPPRESS)
    p.add_argument(
        "--corpus",
        default="default,rich,realistic",
        help="comma-separated corpus shapes: default (the mixed corpus with problems), "
        "rich (the frontmatter of published skills, four roots), realistic (rich, with "
        "5%% of the folders symlinked as npx skills installs them and 3%% broken); "
        "all three by default",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="N = 100 and 1,000, 3 runs, no external loaders (well under a minute)",
    )
    p.add_argument(
        "--listing-only",
        action="store_true",
        help="only the listing-policy row (3,000 skills at the default budget; seconds)",
    )
    args = p.parse_args(argv)
    if args.listing_only:
        with tempfile.TemporaryDirectory(prefix="skillpath-bench-") as tmp:
            script = Path(tmp) / "inproc.py"
            script.write_text(INPROC)
            proc = subprocess.run(
                [sys.executable, str(script), "--policy"], capture_output=True, text=True
            )
        try:
            policy = json.loads(proc.stdout.strip().splitlines()[-1])["policy"]
        except (ValueError, IndexError, KeyError):
            print(f"listing policy run failed: {proc.stderr.strip()[-300:]}", file=sys.stderr)
            return 1
        print(policy_row(policy))
        return 0

    if args.quick:
        args.sizes, args.runs, args.no_external = "100,1000", 3, True
    shapes = [c.strip() for c in args.corpus.split(",") if c.strip()]
    unknown = [c for c in shapes if c not in SHAPES]
    if unknown:
        p.error(f"--corpus: unknown shape(s) {', '.join(unknown)} (known: {', '.join(SHAPES)})")
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if args.max_n is not None:
        sizes = [n for n in sizes if n <= args.max_n]
    py = sys.executable
    sw = args.skillpath or shutil.which("skillpath", path=os.path.dirname(py))
    if not sw:
        print("skillpath console script not found next to", py, file=sys.stderr)
        return 2

    notes: list[str] = []
    externals: dict[str, tuple[Path | None, str]] = {}
    if not args.no_external:
        venvs = Path(args.venv_dir)
        externals["c"] = ensure_venv(venvs, "skills-ref", "skills-ref", "import skills_ref")
        externals["d"] = ensure_venv(
            venvs, "deepagents", "deepagents", "import deepagents.middleware.skills"
        )
        for key, (ext_py, note) in externals.items():
            notes.append(f"({key}) {note}" + ("" if ext_py else " — skipped"))
    else:
        notes.append("(c), (d) skipped (--no-external)")

    work = Path(tempfile.mkdtemp(prefix="skillpath-bench-"))
    scripts = work / "scripts"
    scripts.mkdir()
    for name, text in (
        ("a.py", BASELINE_A),
        ("b.py", BASELINE_B),
        ("c.py", BASELINE_C),
        ("d.py", BASELINE_D),
        ("inproc.py", INPROC),
    ):
        (scripts / name).write_text(text)

    rows: list[tuple[str, str, str, str, str]] = []
    summary: dict[tuple[str, int], dict[str, Measure]] = {}
    try:
        for shape, n in [(shape, n) for shape in shapes for n in sizes]:
            base = work / f"{shape}-n{n}"
            base.mkdir()
            manifest = SHAPES[shape](base, n)
            tag = f"{n:,}" + (f" {shape}" if shape != "default" else "")
            made = time.monotonic()
            cache = base / "cache"
            env = corpus_env(manifest, cache)
            roots = manifest["roots"]
            cwd = manifest["project"]
            runs = args.runs
            res: dict[str, Measure] = {}

            def wipe(cache: Path = cache) -> None:
                shutil.rmtree(cache, ignore_errors=True)

            listing = [sw, "list", "--json"]
            no_index = dict(env, SKILLPATH_NO_INDEX="1")
            index_only = dict(env, SKILLPATH_NO_SNAPSHOT="1")

            def timed(
                label: str,
                argv: list[str],
                run_env: dict[str, str],
                cwd: str = cwd,
                runs: int = runs,
                **kw: Any,
            ) -> Measure:
                return measure(label, argv, env=run_env, cwd=cwd, runs=runs, **kw)

            res["cold"], res["b"] = measure_pair(
                ("list --json, cold (index off)", listing, no_index),
                ("(b) first 4 KB + yaml CSafeLoader", [py, str(scripts / "b.py"), *roots], env),
                cwd=cwd,
                runs=runs,
            )
            res["build"] = timed(
                "list --json, empty cache (builds index)", listing, env, before=wipe
            )
            wipe()
            # "warm" is the steady state of re-listing an unchanged tree: the index
            # is built and the run is replayable. An untimed run builds the index
            # (a large rebuild is not recorded) once the corpus is older than the
            # racy window (changes that recent are never vouched for), then
            # measure's warm-up run records the snapshot
            time.sleep(max(0.0, made + RACY_S - time.monotonic()))
            run_once(listing, env=env, cwd=cwd)
            res["warm"] = timed("list --json, warm (index populated)", listing, env)
            res["warm_index"] = timed(
                "list --json, warm, index only (no replay)", listing, index_only
            )
            res["a"] = timed(
                "(a) walk + read every SKILL.md", [py, str(scripts / "a.py"), *roots], env
            )
            for key, label, script in (
                ("c", "(c) skills-ref read_properties", "c.py"),
                ("d", "(d) deepagents SkillsMiddleware", "d.py"),
            ):
                ext_py, note = externals.get(key, (None, "skipped"))
                if shape != "default":
                    res[key] = Measure(label, [], 0, "default corpus only")
                    continue
                if ext_py is None:
                    res[key] = Measure(label, [], 0, "skipped")
                    continue
                res[key] = measure(
                    label,
                    [str(ext_py), str(scripts / script), *roots],
                    env=env,
                    cwd=cwd,
                    runs=max(1, min(runs, 3)),
                )
            # sanity: what did skillpath find?
            out = base / "out.json"
            run_once(listing, env=env, cwd=cwd, out=out)
            try:
                data = json.loads(out.read_text())
                found = (
                    f"{len(data['skills'])} skills, {len(data['shadowed'])} shadowed, "
                    f"{len(data['diagnostics'])} diagnostics"
                )
            except (OSError, ValueError, KeyError) as exc:
                found = f"unreadable output ({exc})"
            # the three ways of listing must print the same bytes
            outputs = {}
            for mode, mode_env in (
                ("cold", no_index),
                ("index only", index_only),
                ("replayed", env),
            ):
                target = base / f"out-{mode.replace(' ', '-')}.json"
                run_once(listing, env=mode_env, cwd=cwd, out=target)
                outputs[mode] = target.read_bytes()
            same = len(set(outputs.values())) == 1
            found += "; cold, index-only and replayed output " + (
                "byte-identical" if same else "DIFFER"
            )
            notes.append(f"N={tag}: corpus {manifest['counts']}; skillpath found {found}")
            summary[(shape, n)] = res
            for m in res.values():
                rows.append((tag, m.label, fmt_t(m), fmt_rss(m), fmt_cpu(m)))
            if not args.keep:
                shutil.rmtree(base, ignore_errors=True)

        # start-up on an empty project
        empty = work / "empty"
        (empty / "home").mkdir(parents=True)
        (empty / "proj").mkdir()
        env0 = corpus_env({"home": str(empty / "home")}, empty / "cache")
        startup_runs = max(args.runs, 7)
        bare, listed = measure_pair(
            (f'python -c "{BARE_IMPORT}"', [py, "-c", BARE_IMPORT], env0),
            (
                "skillpath list (empty project, no replay)",
                [sw, "list"],
                dict(env0, SKILLPATH_NO_SNAPSHOT="1"),
            ),
            cwd=str(empty / "proj"),
            runs=startup_runs,
        )
        startup = {
            "bare": bare,
            "list": listed,
            "import": measure(
                'python -c "import skillpath"',
                [py, "-c", "import skillpath"],
                env=env0,
                cwd=str(empty / "proj"),
                runs=max(args.runs, 7),
            ),
            "replay": measure(
                "skillpath list (empty project, replayed)",
                [sw, "list"],
                env=env0,
                cwd=str(empty / "proj"),
                runs=max(args.runs, 7),
            ),
        }
        for m in startup.values():
            rows.append(("empty", m.label, fmt_t(m), fmt_rss(m), fmt_cpu(m)))

        # in-process measurements
        proc = subprocess.run(
            [py, str(scripts / "inproc.py"), str(empty / "proj")],
            capture_output=True,
            text=True,
            env=env0,
            cwd=str(empty / "proj"),
        )
        try:
            inproc = json.loads(proc.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            inproc = {
                "render": {"na": f"in-process run failed: {proc.stderr.strip()[-200:]}"},
                "activate": {"na": "in-process run failed"},
            }
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            notes.append(f"corpus kept in {work}")

    # ---------------------------------------------------------------- print
    print()
    print(f"skillpath benchmark — {sys.version.split()[0]}, {os.cpu_count()} CPUs, ", end="")
    print(f"{args.runs} runs per command (median [min-max]), new process each run")
    print()
    w = max(len(r[1]) for r in rows)
    nw = max(7, *(len(r[0]) for r in rows))
    print(f"{'N':>{nw}}  {'command':<{w}}  {'median [min-max]':<28}  peak RSS  CPU (median)")
    print(f"{'-' * nw}  {'-' * w}  {'-' * 28}  --------  ------------")
    last = None
    for n, label, t, rss, cpu_s in rows:
        if last is not None and n != last:
            print()
        last = n
        print(f"{n:>{nw}}  {label:<{w}}  {t:<28}  {rss:<8}  {cpu_s}")
    print()

    def ratio(x: Measure | None, y: Measure | None) -> float | None:
        if x is None or y is None or not x.ok or not y.ok:
            return None
        return x.median / y.median

    def show(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.2f}x"

    def min_ratio(x: Measure | None, y: Measure | None) -> float | None:
        if x is None or y is None or not x.ok or not y.ok:
            return None
        return min(x.times) / min(y.times)

    def cpu_ratio(x: Measure, y: Measure) -> float | None:
        if not (x.cpu and y.cpu):
            return None
        return statistics.median(x.cpu) / statistics.median(y.cpu)

    print("Ratios (median / median)")
    for (shape, n), res in summary.items():
        parts = [
            f"cold/(b) {show(ratio(res['cold'], res['b']))}",
            f"cold/(a) {show(ratio(res['cold'], res['a']))}",
            f"warm/(a) {show(ratio(res['warm'], res['a']))}",
            f"warm/(b) {show(ratio(res['warm'], res['b']))}",
            f"index-only/(a) {show(ratio(res['warm_index'], res['a']))}",
            f"CPU cold/(b) {show(cpu_ratio(res['cold'], res['b']))}",
            f"CPU warm/(a) {show(cpu_ratio(res['warm'], res['a']))}",
        ]
        if shape == "default":
            parts.append(f"cold/(c) {show(ratio(res['cold'], res['c']))}")
            parts.append(f"cold/(d) {show(ratio(res['cold'], res['d']))}")
        print(f"  {shape:<9} N={n:<6,} " + "  ".join(parts))
    print()

    targets: list[tuple[str, str, str]] = []
    for shape in shapes:
        sized = [n for (sh, n) in summary if sh == shape]
        if not sized:
            continue
        top_n = 10_000 if 10_000 in sized else max(sized)
        top = summary[(shape, top_n)]
        at = f"N={top_n:,}, {shape} corpus"
        r = ratio(top["cold"], top["b"])
        targets.append((f"cold list --json <= 1.3x (b), {at}", show(r), verdict(r, 1.3)))
        targets.append(
            (
                f"(info) same, min / min of the alternated runs, {at}",
                show(min_ratio(top["cold"], top["b"])),
                "-",
            )
        )
        targets.append(
            (
                f"(info) same, processor time (user+sys, worker included), {at}",
                show(cpu_ratio(top["cold"], top["b"])),
                "-",
            )
        )
        if shape == "default":
            targets.append(
                (f"cold list --json <= 2x (b), {at} (core issue)", show(r), verdict(r, 2.0))
            )
            for key, name in (("c", "skills-ref"), ("d", "deepagents")):
                r2 = ratio(top["cold"], top[key])
                targets.append((f"cold list --json faster than {name}", show(r2), verdict(r2, 1.0)))
        r = ratio(top["warm"], top["a"])
        targets.append((f"warm list --json <= 1.0x (a), {at}", show(r), verdict(r, 1.0)))
        targets.append(
            (
                f"(info) same, processor time (user+sys), {at}",
                show(cpu_ratio(top["warm"], top["a"])),
                "-",
            )
        )
        r = ratio(top["warm_index"], top["a"])
        targets.append((f"(info) warm, index only (no replay) / (a), {at}", show(r), "-"))
        rss = max(top["cold"].rss, top["warm"].rss, top["build"].rss, top["warm_index"].rss) / MB
        ok = top["cold"].ok and top["warm"].ok
        targets.append(
            (
                f"peak RSS <= 80 MB, {at}",
                f"{rss:.1f} MB" if ok else "n/a",
                verdict(rss if ok else None, 80),
            )
        )
    r = ratio(startup["list"], startup["bare"])
    targets.append(
        ("list on empty project (no replay) <= 1.3x bare import", show(r), verdict(r, 1.3))
    )
    r = min_ratio(startup["list"], startup["bare"])
    targets.append(("(info) same, min / min of the alternated runs", show(r), "-"))
    r = cpu_ratio(startup["list"], startup["bare"])
    targets.append(("(info) same, processor time (user+sys)", show(r), "-"))
    r = ratio(startup["replay"], startup["bare"])
    targets.append(("(info) list on empty project, replayed / bare import", show(r), "-"))
    r = ratio(startup["import"], startup["bare"])
    targets.append(("(info) import skillpath / bare import", show(r), "-"))
    for key, label, limit in (
        ("render", "render budgeted listing of 10,000 skills <= 50 ms", 0.05),
        ("activate", "activate 1,000 conditional skills x 10,000 paths <= 1 s", 1.0),
    ):
        info = inproc.get(key, {"na": "not measured"})
        if "na" in info:
            targets.append((label, "n/a", "n/a"))
            notes.append(f"{key}: {info['na']}")
        else:
            targets.append(
                (label, f"{info['median'] * 1000:.1f} ms", verdict(info["median"], limit))
            )

    policy = inproc.get("policy")
    if isinstance(policy, dict) and "n" in policy:
        notes.append(policy_row(policy))
    print("Targets")
    tw = max(len(t[0]) for t in targets)
    for label, value, v in targets:
        print(f"  {label:<{tw}}  {value:>10}  {v}")
    print()
    print("Notes")
    for note in notes:
        print("  " + note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
