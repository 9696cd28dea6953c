"""Generated fixture trees for the differential tests.

:func:`frontmatter_cases` gives the frontmatter edge cases (each a skill folder
name and the bytes of its ``SKILL.md``); :func:`build_tree` writes a home, a git
repository and a working directory two levels below its root, with the
frontmatter cases in one project root and location, nesting, symlink and
duplicate cases around them. Every case has its own skill name, so one agent
run checks all of them at once.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

__all__ = [
    "Tree",
    "budget_tree",
    "build_tree",
    "codex_switches",
    "frontmatter_cases",
    "roots_tree",
    "skill_md",
]


def skill_md(name: str, description: str, body: str = "Do the thing.\n") -> bytes:
    """A plain ``SKILL.md`` with ``name`` and ``description``."""
    return f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\n{body}".encode()


def frontmatter_cases() -> dict[str, bytes]:
    """Folder name -> ``SKILL.md`` bytes, one frontmatter edge case each."""
    long_desc = "Long description " + "x" * 1100
    c: dict[str, bytes] = {
        "fm-ok": skill_md("fm-ok", "A plain skill."),
        "fm-no-desc": b"---\nname: fm-no-desc\n---\n# Heading line\n\nFirst paragraph.\n",
        "fm-empty-desc": b'---\nname: fm-empty-desc\ndescription: ""\n---\nBody line.\n',
        "fm-list-desc": b"---\nname: fm-list-desc\ndescription: [a, b]\n---\nBody.\n",
        "fm-none": b"# No frontmatter here\n\nJust a body.\n",
        "fm-unclosed": b"---\nname: fm-unclosed\ndescription: never closed\nBody.\n",
        "fm-blank-before": b"\n---\nname: fm-blank-before\ndescription: Blank first.\n---\nB.\n",
        "fm-bom": b"\xef\xbb\xbf" + skill_md("fm-bom", "Starts with a BOM."),
        "fm-name-65": skill_md("n" * 65, "A 65 character name."),
        "fm-name-64": skill_md("m" * 64, "A 64 character name."),
        "fm-int-name": b"---\nname: 123\ndescription: Integer name.\n---\nB.\n",
        "fm-bad-yaml": b"---\nname: fm-bad-yaml\ndescription: a: b\n---\nB.\n",
        "fm-bad-yaml-flow": b"---\nname: [unclosed\ndescription: broken\n---\nB.\n",
        "fm-mismatch": skill_md("other-name", "Name differs from its folder."),
        "fm-no-name": b"---\ndescription: Only a description.\n---\nB.\n",
        "fm-long-desc": skill_md("fm-long-desc", long_desc),
        "fm-desc-1024": skill_md("fm-desc-1024", "d" * 1024),
        "fm-desc-1025": skill_md("fm-desc-1025", "e" * 1025),
        "fm-folded": (
            b"---\nname: fm-folded\ndescription: >\n  Folded over\n  two lines.\n---\nB.\n"
        ),
        "fm-literal": b"---\nname: fm-literal\ndescription: |\n  Line one.\n  Line two.\n---\nB.\n",
        "fm-markup": skill_md("fm-markup", '"Use <b>bold</b> & more"'),
        "fm-quoted-colon": skill_md("fm-quoted-colon", '"Has: a colon"'),
        "fm-int-desc": b"---\nname: fm-int-desc\ndescription: 42\n---\nB.\n",
        "fm-bool-desc": b"---\nname: fm-bool-desc\ndescription: true\n---\nB.\n",
        "fm-null-desc": b"---\nname: fm-null-desc\ndescription: ~\n---\nB.\n",
        "fm-map-desc": b"---\nname: fm-map-desc\ndescription:\n  a: b\n---\nB.\n",
        "fm-empty-name": b'---\nname: ""\ndescription: Empty name.\n---\nB.\n',
        "fm-upper": skill_md("FM-Upper", "Upper-case name."),
        "fm-spaces": skill_md("fm spaces here", "Name with spaces."),
        "fm-crlf": b"---\r\nname: fm-crlf\r\ndescription: Windows line ends.\r\n---\r\nB.\r\n",
        "fm-unknown-keys": (
            b"---\nname: fm-unknown-keys\ndescription: Extra keys.\nfoo: bar\n---\nB.\n"
        ),
        "fm-hidden": b"---\nname: fm-hidden\ndescription: Model may not invoke.\n"
        b"disable-model-invocation: true\n---\nB.\n",
        "fm-not-user": b"---\nname: fm-not-user\ndescription: Not user invocable.\n"
        b"user-invocable: false\n---\nB.\n",
        "fm-empty-block": b"---\n---\n# Empty block title\n\nBody.\n",
        "fm-no-body": b"---\nname: fm-no-body\ndescription: No body at all.\n---\n",
        "fm-indented-fence": b" ---\nname: fm-indented-fence\ndescription: Indented.\n---\nB.\n",
        "fm-fence-space": b"--- \nname: fm-fence-space\ndescription: Trailing space.\n---\nB.\n",
        "fm-four-dashes": b"----\nname: fm-four-dashes\ndescription: Four dashes.\n----\nB.\n",
        "fm-lower-file": b"",
        "fm-heading-only": b"---\nname: fm-heading-only\n---\n\n\n## Second level heading\nMore.\n",
        "fm-comment": (
            b"---\n# a comment\nname: fm-comment\ndescription: After a comment.\n---\nB.\n"
        ),
        "fm-desc-newline-escape": skill_md("fm-desc-newline-escape", '"one\\ntwo"'),
        "fm-unicode": skill_md("fm-unicode", "Café – naïve “quotes”."),
    }
    return c


class Tree:
    """Paths of a generated tree: ``home``, ``repo`` (git root), ``cwd`` (``repo/a/b``)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.home = base / "home"
        self.repo = base / "repo"
        self.cwd = self.repo / "a" / "b"
        self.outside = base / "outside"


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _skill(root: Path, rel: str, name: str | None = None, desc: str | None = None) -> None:
    folder = rel.rsplit("/", 1)[-1]
    _write(root / rel / "SKILL.md", skill_md(name or folder, desc or f"Skill {folder}."))


def build_tree(base: Path, *, frontmatter_root: str, git: bool = True) -> Tree:
    """Write the standard fixture tree under ``base``.

    ``frontmatter_root`` is the folder (relative to the repository root) that
    receives :func:`frontmatter_cases`, e.g. ``.claude/skills``.
    """
    t = Tree(base)
    for p in (t.home, t.cwd, t.outside):
        p.mkdir(parents=True, exist_ok=True)
    if git:
        subprocess.run(["git", "init", "-q", str(t.repo)], check=True)
    fm = t.repo / frontmatter_root
    for folder, data in frontmatter_cases().items():
        if folder == "fm-lower-file":
            _write(fm / folder / "skill.md", skill_md(folder, "Lower-case file name."))
        else:
            _write(fm / folder / "SKILL.md", data)
    # locations: every folder an agent might read, one skill each
    locations = {
        "loc-home-claude": t.home / ".claude/skills",
        "loc-home-agents": t.home / ".agents/skills",
        "loc-home-codex": t.home / ".codex/skills",
        "loc-home-oc-skills": t.home / ".config/opencode/skills",
        "loc-home-oc-skill": t.home / ".config/opencode/skill",
        "loc-home-claude-alt": t.home / ".config/opencode/.claude/skills",
        "loc-root-claude": t.repo / ".claude/skills",
        "loc-root-agents": t.repo / ".agents/skills",
        "loc-root-agent": t.repo / ".agent/skills",
        "loc-root-codex": t.repo / ".codex/skills",
        "loc-root-oc-skills": t.repo / ".opencode/skills",
        "loc-root-oc-skill": t.repo / ".opencode/skill",
        "loc-mid-claude": t.repo / "a/.claude/skills",
        "loc-mid-agents": t.repo / "a/.agents/skills",
        "loc-mid-codex": t.repo / "a/.codex/skills",
        "loc-mid-oc": t.repo / "a/.opencode/skills",
        "loc-cwd-claude": t.cwd / ".claude/skills",
        "loc-cwd-agents": t.cwd / ".agents/skills",
        "loc-cwd-agent": t.cwd / ".agent/skills",
        "loc-cwd-codex": t.cwd / ".codex/skills",
        "loc-cwd-oc": t.cwd / ".opencode/skills",
        "loc-below-claude": t.cwd / "sub/.claude/skills",
        "loc-below-agents": t.cwd / "sub/.agents/skills",
        "loc-above-claude": t.base / ".claude/skills",
        "loc-above-agents": t.base / ".agents/skills",
    }
    for name, root in locations.items():
        _skill(root, name)
    # the same name in several folders: which copy wins
    dups = {
        "dup-user-project": [t.home / ".claude/skills", t.repo / ".claude/skills"],
        "dup-root-cwd-claude": [t.repo / ".claude/skills", t.cwd / ".claude/skills"],
        "dup-home-repo-agents": [t.home / ".agents/skills", t.repo / ".agents/skills"],
        "dup-root-cwd-agents": [t.repo / ".agents/skills", t.cwd / ".agents/skills"],
        "dup-codex-agents": [t.repo / ".codex/skills", t.repo / ".agents/skills"],
        "dup-oc-agents": [t.repo / ".opencode/skills", t.repo / ".agents/skills"],
        "dup-oc-claude": [t.repo / ".opencode/skills", t.repo / ".claude/skills"],
        "dup-claude-agents": [t.repo / ".claude/skills", t.repo / ".agents/skills"],
    }
    for name, roots in dups.items():
        for i, root in enumerate(roots):
            _skill(root, name, desc=f"Copy {i} of {name} in {root.relative_to(t.base)}.")
    # nesting, dot folders, skill in skill, in each project root
    for label, root in (
        ("claude", t.repo / ".claude/skills"),
        ("agents", t.repo / ".agents/skills"),
        ("oc", t.repo / ".opencode/skills"),
    ):
        _skill(root, f"group/nest-2-{label}")
        _skill(root, f"g1/g2/g3/g4/g5/nest-6-{label}")
        _skill(root, f"g1/g2/g3/g4/g5/g6/nest-7-{label}")
        _skill(root, f".dot/dot-inner-{label}")
        _skill(root, f".dot-skill-{label}")
        _skill(root, f"outer-{label}")
        _skill(root, f"outer-{label}/inner-{label}")
        _skill(root, f"node_modules/nm-{label}")
    # symlinks: a skill folder linked from inside and from outside the project
    _skill(t.outside, "link-outside-target", "link-outside")
    _skill(t.repo / "lib", "link-inside-target", "link-inside")
    for label, root in (("claude", ".claude/skills"), ("agents", ".agents/skills")):
        (t.repo / root).mkdir(parents=True, exist_ok=True)
        os.symlink(t.outside / "link-outside-target", t.repo / root / f"link-out-{label}")
        os.symlink(t.repo / "lib/link-inside-target", t.repo / root / f"link-in-{label}")
    # the agents' own switches
    agents = t.repo / ".agents/skills"
    _skill(agents, "sw-implicit-off")
    _write(
        agents / "sw-implicit-off/agents/openai.yaml",
        b"policy:\n  allow_implicit_invocation: false\n",
    )
    _skill(agents, "sw-disabled")
    _skill(agents, "sw-denied")
    _skill(agents, "sw-allowed")
    _write(
        t.repo / "opencode.json",
        b'{"permission": {"skill": {"*": "allow", "sw-denied": "deny"}}}\n',
    )
    # Claude Code's per-entry cut and legacy commands
    claude = t.repo / ".claude/skills"
    for n in (1535, 1536, 1537, 1600):
        _skill(claude, f"cut-{n}", desc="c" * n)
    _write(t.repo / ".claude/commands/cmd-plain.md", b"Run the plain command.\n")
    _write(
        t.repo / ".claude/commands/cmd-fm.md",
        b"---\ndescription: A command with frontmatter.\n---\nBody.\n",
    )
    _write(t.repo / ".claude/commands/grp/cmd-nested.md", b"# Nested command\n")
    _write(t.home / ".claude/commands/cmd-user.md", b"User command.\n")
    return t


def codex_switches(t: Tree) -> str:
    """The ``config.toml`` lines that disable ``sw-disabled``."""
    path = t.repo / ".agents/skills/sw-disabled/SKILL.md"
    return f'[[skills.config]]\npath = "{path}"\nenabled = false\n'


def budget_tree(base: Path, root: str, count: int = 300) -> Tree:
    """A repository with ``count`` skills of 150-character descriptions in ``root``."""
    t = Tree(base)
    for p in (t.home, t.cwd):
        p.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(t.repo)], check=True)
    for i in range(count):
        name = f"bulk-{i:03d}"
        desc = (f"Skill number {i} " + "word " * 40)[:150].strip()
        _skill(t.repo / root, name, desc=desc)
    return t


_WORDS = ("deploy", "review", "naïve", "über", "δέλτα", "日本語", "emoji🙂", "x", "release")


def roots_tree(base: Path, per_root: int, seed: int) -> Tree:
    """Skills in many roots (``.codex/skills`` and ``.agents/skills`` at the repository
    root, ``repo/a`` and cwd, and both user folders): ``per_root`` each, descriptions of
    5 to 400 characters mixing one- to four-byte characters (seeded, so reproducible)."""
    rng = random.Random(seed)
    t = Tree(base)
    for p in (t.home, t.cwd):
        p.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(t.repo)], check=True)
    folders = [d / sub for d in (t.repo, t.repo / "a", t.cwd) for sub in (".codex", ".agents")]
    folders += [t.home / ".codex", t.home / ".agents"]
    i = 0
    for folder in folders:
        for _ in range(per_root):
            size = rng.randint(5, 400)
            desc = " ".join(rng.choice(_WORDS) for _ in range(size))[:size].strip() or "x"
            # JSON string syntax is YAML double-quoted syntax: any character survives
            _skill(folder / "skills", f"multi-{i:03d}", desc=json.dumps(desc, ensure_ascii=False))
            i += 1
    return t
