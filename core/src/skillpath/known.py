"""The built-in providers' folders and distributions, for hints when one is not installed.

A core-only install (``pip install skillpath-core``) reads no agent's folders: each
built-in provider is a distribution of its own. So that such an install does not list
nothing without saying why, :func:`missing_provider_diagnostics` looks at the usual
skills folders of every built-in provider that is **not installed** (no entry point of
that name in the ``skillpath`` group) and reports each folder that holds skills with a
``provider-not-installed`` warning naming the distribution to install. ``list``,
``doctor`` and ``explain`` show it.

:data:`KNOWN_PROVIDERS` is the one table of those folders and distributions; it lists
the common default places only (a provider reads more, such as a policy directory or a
folder moved by an environment variable). Installed providers cost nothing here: their
folders are not looked at.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable
from pathlib import Path

import attrs

from skillpath.context import SkillContext
from skillpath.model import Diagnostic

__all__ = ["CODE", "KNOWN_PROVIDERS", "KnownProvider", "missing_provider_diagnostics"]

#: The diagnostic code of the hint.
CODE = "provider-not-installed"


@attrs.frozen
class KnownProvider:
    """A built-in provider: its id, its distribution and the folders it usually reads.

    ``project`` folders are relative to every directory from cwd up to the project
    root; ``user`` folders are relative to the home directory. ``commands`` folders
    hold single-file ``*.md`` commands instead of ``<name>/SKILL.md`` folders.
    """

    provider: str
    distribution: str
    agent: str
    project: tuple[str, ...] = ()
    user: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()


#: Every built-in provider, in the order of ``skillpath.loader.BUILTIN_ORDER``.
KNOWN_PROVIDERS: tuple[KnownProvider, ...] = (
    KnownProvider(
        "native", "skillpath-native", "skillpath", (".skillpath/skills",), (".skillpath/skills",)
    ),
    KnownProvider(
        "claude",
        "skillpath-claude",
        "Claude Code",
        (".claude/skills", ".claude/commands"),
        (".claude/skills", ".claude/commands"),
        commands=(".claude/commands",),
    ),
    KnownProvider(
        "claude-plugins",
        "skillpath-claude-plugins",
        "Claude Code plugins",
        user=(".claude/plugins",),
    ),
    KnownProvider(
        "agents",
        "skillpath-agents",
        "the .agents standard",
        (".agents/skills", ".agent/skills"),
        (".agents/skills", ".agent/skills"),
    ),
    KnownProvider("codex", "skillpath-codex", "Codex", (".codex/skills",), (".codex/skills",)),
    KnownProvider(
        "opencode",
        "skillpath-opencode",
        "OpenCode",
        (".opencode/skills", ".opencode/skill"),
        (".config/opencode/skills", ".config/opencode/skill"),
    ),
    KnownProvider(
        "github", "skillpath-github", "GitHub Copilot", (".github/skills",), (".copilot/skills",)
    ),
    KnownProvider("mcp", "skillpath-mcp", "MCP servers"),
    KnownProvider("packs", "skillpath-packs", "installed skill packs"),
    KnownProvider("libraries", "skillpath-libraries", "skills installed libraries ship"),
    KnownProvider(
        "managed", "skillpath-managed", "skillpath (managed)", user=(".skillpath/managed-skills",)
    ),
)

#: At most this many entries of a folder are looked at to tell whether it holds skills.
MAX_ENTRIES = 256


def _holds_skills(folder: Path, commands: bool) -> bool:
    """Whether ``folder`` has a ``<name>/SKILL.md`` (or, for commands, a ``*.md``)."""
    try:
        with os.scandir(folder) as it:
            for n, entry in enumerate(it):
                if n >= MAX_ENTRIES:
                    break
                if entry.name.startswith("."):
                    continue
                if commands:
                    if entry.name.endswith(".md") or entry.is_dir():
                        return True
                elif entry.is_dir() and os.path.isfile(os.path.join(entry.path, "SKILL.md")):
                    return True
    except OSError:
        return False
    return False


def _plugins_folder(folder: Path) -> bool:
    return os.path.isfile(folder / "installed_plugins.json")


def missing_provider_diagnostics(
    ctx: SkillContext, installed: Collection[str], pack_entry_points: Iterable[str] = ()
) -> list[Diagnostic]:
    """``provider-not-installed`` warnings for the folders no installed provider reads.

    :param installed: the names of the ``skillpath`` entry points installed.
    :param pack_entry_points: the names of the ``skillpath.packs`` entry points.
    """
    out: list[Diagnostic] = []
    seen: set[Path] = set()

    def hint(known: KnownProvider, path: Path | None, what: str) -> None:
        out.append(
            Diagnostic(
                "warning",
                CODE,
                f"{what}, but the provider {known.provider!r} is not installed: install "
                f"{known.distribution} (pip install {known.distribution})",
                path,
            )
        )

    missing = [k for k in KNOWN_PROVIDERS if k.provider not in installed]
    if not missing:
        return out
    folders = ctx.walk_up(skip_home=True, entries=[r for k in missing for r in k.project])
    for known in missing:
        candidates = [(f / rel, rel in known.commands) for f in folders for rel in known.project]
        candidates += [(ctx.home / rel, rel in known.commands) for rel in known.user]
        for path, commands in candidates:
            if path in seen:
                continue
            if known.provider == "claude-plugins":
                found = _plugins_folder(path)
            else:
                found = _holds_skills(path, commands)
            if found:
                seen.add(path)
                kind = "commands" if commands else "skills"
                hint(known, path, f"{path} holds {kind} for {known.agent}")
        if known.provider == "mcp" and ctx.settings.get("mcp", "servers", ()):
            hint(known, None, "[mcp] servers is set")
        if known.provider == "packs":
            names = sorted(set(pack_entry_points))
            if names:
                hint(known, None, f"skill packs are installed ({', '.join(names)})")
    return out
