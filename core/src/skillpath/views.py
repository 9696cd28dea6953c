"""What each agent shows the model: a view per agent (Claude Code, Codex, OpenCode).

skillpath's own catalog (:func:`skillpath.load_skills`) is deterministic,
budgeted with a report and never silent. A *view* answers a different question:
what one real agent, started in ``cwd``, will list to its model, what it drops
and why. Each view follows that agent's own rules, learned by running the
pinned agents against a scripted model API (``tests/counterparts``):

``claude-code`` (Claude Code 2.1.332)
    the managed ``/etc/claude-code/.claude/skills`` (``SKILLPATH_CLAUDE_MANAGED_DIR``
    moves ``/etc/claude-code``; none when ``CLAUDE_CODE_DISABLE_POLICY_SKILLS`` is set),
    ``<CLAUDE_CONFIG_DIR or ~/.claude>/skills``, then ``.claude/skills`` from cwd up
    to the repository root (nearest first), then legacy ``.claude/commands/*.md``
    (managed, user, project),
    then the commands and then the skills of every installed plugin enabled in
    ``enabledPlugins``, named ``plugin:name``, read by :mod:`skillpath.claude_plugins`
    (the reader the ``claude-plugins`` provider uses too: the settings files and their
    precedence, plugins in ``enabledPlugins`` order, a directory marketplace's plugin
    read from that directory, ``${CLAUDE_PLUGIN_ROOT}`` substituted when invoked; an
    installed plugin that does not load is dropped with the reason). One level deep,
    dot folders included, symlinks followed (a target reached twice loads once).
    Listed under the folder name (``folder (name)`` when ``name:`` differs);
    ``disable-model-invocation`` hides. No usable description: the first
    non-blank body line, ``#`` stripped. Groups in that order, each by name;
    entry cut ``description[:1535] + "…"``; budget
    ``SLASH_COMMAND_TOOL_CHAR_BUDGET`` else context window × 4 × 0.01; over
    budget every entry is ``- name`` and then, in order, gets its description
    back while it fits.
``codex`` (Codex CLI 0.171.0)
    ``.codex/skills`` and ``.agents/skills`` in every directory from cwd up to
    the repository root (outside git: only cwd's two),
    ``$CODEX_HOME/skills`` and its ``.system`` skills, ``~/.agents/skills``,
    ``/etc/codex/skills``. Nested to depth 6, dot entries skipped, a skill
    inside a skill read. Dropped: a BOM, anything before the opening ``---``,
    no closing ``---``, no (string) description, a name over 64 characters, a
    ``\\u`` escape of a UTF-16 surrogate.
    A name found twice is listed twice. ``agents/openai.yaml``
    ``policy.allow_implicit_invocation: false`` and ``[[skills.config]]
    enabled = false`` hide. Descriptions over 1,024 characters are cut to
    1,021 + ``...``. Budget: ``[skills] max_context_tokens`` (at most 10,000),
    else 2% of the model's context window, in tokens (four bytes each), the
    root alias table charged as Codex charges it; over it, descriptions are
    shortened evenly, then skills left out.
``opencode`` (OpenCode 1.18.33)
    ``~/.claude/skills`` and ``~/.agents/skills``, the same two in every
    directory from cwd up to the worktree, then ``{skill,skills}`` under
    ``~/.config/opencode`` and every ``.opencode`` from cwd up; any depth
    (dot folders only under ``.claude``/``.agents``). ``name`` and
    ``description`` must be strings. The last copy of a name read wins, but
    OpenCode reads in parallel, so the pick is flagged as unstable.
    ``permission.skill`` ``deny`` hides. Everything is listed, by name, in an
    unescaped ``<available_skills>`` block.

The agents' own built-in skills (Codex's ``.system`` folder excepted, which is
on disk) are not part of a view.
"""

from __future__ import annotations

import fnmatch
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import attrs

from skillpath._lazyre import lazy_pattern
from skillpath.claude_plugins import (
    command_files,
    config_dir,
    loaded_plugins,
    managed_dir,
    skill_files,
    skipped_plugins,
)

__all__ = [
    "AGENTS",
    "AgentView",
    "Difference",
    "Dropped",
    "ViewSkill",
    "claude_budget",
    "claude_plugin_roots",
    "codex_skill_files",
    "differences",
    "skip_reason",
    "view",
]

#: The agents a view can be made for.
AGENTS = ("claude-code", "codex", "opencode")

CLAUDE_HEADER = "The following skills are available for use with the Skill tool:"
CLAUDE_ENTRY_CUT = 1535
CLAUDE_BUDGET_ENV = "SLASH_COMMAND_TOOL_CHAR_BUDGET"
CLAUDE_BUDGET_FRACTION = 0.01
#: The context window of Claude Code's default model (its ``modelUsage`` report).
CLAUDE_CONTEXT_WINDOW = 1_000_000

#: The context window Codex assumes for a model it has no metadata for (its fallback).
CODEX_CONTEXT_WINDOW = 272_000
CODEX_BUDGET_PERCENT = 2
#: The most ``[skills] max_context_tokens`` can raise Codex's listing budget to.
CODEX_MAX_CONFIGURED_TOKENS = 10_000
CODEX_MAX_DEPTH = 6
CODEX_MAX_DIRS = 2000
CODEX_NAME_MAX = 64
CODEX_DESCRIPTION_MAX = 1024
CODEX_INTRO = (
    "A skill is a set of local instructions to follow that is stored in a `SKILL.md` file. "
    "Below is the list of skills that can be used. Each entry includes a name, description, "
    "and a short path that can be expanded into an absolute path using the skill roots table."
)
#: Codex's intro for a listing with absolute paths. Codex sends the aliased form, but
#: prices the root alias table as the aliased body's cost over this one's.
CODEX_INTRO_UNALIASED = (
    "A skill is a set of instructions provided through a `SKILL.md` source. Below is the "
    "list of skills that can be used. Each entry includes a name, description, and source "
    "locator. `file` locators are on the host filesystem, `executor package` locators are "
    "owned by their execution environment, `cloud package` locators are opaque package "
    "identifiers, and `custom resource` locators use their provider's access mechanism."
)
#: The "How to use skills" text Codex appends to the listing for a model whose
#: metadata asks for it (``include_skills_usage_instructions``).
CODEX_HOW_TO = (
    "- Discovery: The list above is the skills available in this session (name + description + "
    "short path). Skill bodies live on disk at the listed paths after expanding the matching "
    "alias from `### Skill roots`.\n"
    "- Trigger rules: If the user names a skill (with `$SkillName` or plain text) OR the task "
    "clearly matches a skill's description shown above, you must use that skill for that turn. "
    "Multiple mentions mean use them all. Do not carry skills across turns unless "
    "re-mentioned.\n"
    "- Missing/blocked: If a named skill isn't in the list or the path can't be read, say so "
    "briefly and continue with the best fallback.\n"
    "- How to use a skill (progressive disclosure):\n"
    "  1) After deciding to use a skill, the main agent must expand the listed short `path` "
    "with the matching alias from `### Skill roots`, then open and read its `SKILL.md` "
    "completely before taking task actions. If a read is truncated or paginated, continue "
    "until EOF.\n"
    "  2) When `SKILL.md` references relative paths (e.g., `scripts/foo.py`), resolve them "
    "relative to the directory containing that expanded `SKILL.md` first, and only consider "
    "other paths if needed.\n"
    "  3) If `SKILL.md` points to extra folders such as `references/`, use its routing "
    "instructions to identify the files required for the task. The main agent must read each "
    "required instruction or reference file itself before acting on it. Do not delegate "
    "reading, summarizing, or interpreting skill instructions to a subagent. Subagents may "
    "still perform task work when the selected skill allows it.\n"
    "  4) If `scripts/` exist, prefer running or patching them instead of retyping large code "
    "blocks.\n"
    "  5) If `assets/` or templates exist, reuse them instead of recreating from scratch.\n"
    "- Coordination and sequencing:\n"
    "  - If multiple skills apply, choose the minimal set that covers the request and state "
    "the order you'll use them.\n"
    "  - Announce which skill(s) you're using and why (one short line). If you skip an obvious "
    "skill, say why.\n"
    "- Context hygiene:\n"
    "  - Progressive disclosure applies to selecting relevant files, not partially reading a "
    "selected instruction file. Do not load unrelated references, scripts, or assets.\n"
    "  - Avoid deep reference-chasing: prefer opening only files directly linked from "
    "`SKILL.md` unless you're blocked.\n"
    "  - When variants exist (frameworks, providers, domains), pick only the relevant "
    "reference file(s) and note that choice.\n"
    "- Safety and fallback: If a skill can't be applied cleanly (missing files, unclear "
    "instructions), state the issue, pick the next-best approach, and continue."
)
#: The models the pinned Codex ships metadata for: ``slug: (context window, how-to)``.
#: Any other model gets :data:`CODEX_CONTEXT_WINDOW` and no how-to text.
CODEX_MODELS: dict[str, tuple[int, bool]] = {
    "codex-auto-review": (272_000, False),
    "gpt-5.5": (272_000, True),
    "gpt-5.6-luna": (272_000, False),
    "gpt-5.6-sol": (272_000, False),
    "gpt-5.6-terra": (272_000, False),
    "gpt-6-astra": (272_000, False),
    "gpt-6-luna": (272_000, False),
    "gpt-6-sol": (272_000, False),
    "gpt-6.1-sol": (500_000, False),
    "gpt-6.1-terra": (500_000, False),
    "gpt-6.2-astra": (272_000, False),
    "gpt-6.2-sol": (500_000, False),
    "gpt-daybreak-blue-latest": (272_000, False),
    "gpt-daybreak-red-latest": (372_000, False),
}
_SCOPE_RANK = {"system": 0, "admin": 1, "repo": 2, "user": 3}


@attrs.frozen
class ViewSkill:
    """One skill as an agent loads it.

    ``name`` is the name the agent lists (Claude Code: ``folder (name)`` when
    they differ), ``description`` the listed text (after the agent's cut),
    ``path`` the ``SKILL.md`` (or command file), ``root`` the folder scanned,
    ``scope`` the agent's word for where it came from. ``shown`` is False when
    the agent loads the skill but keeps it out of the listing; ``why`` says why.
    ``plugin_root`` is the folder of the Claude Code plugin it comes from
    (``${CLAUDE_PLUGIN_ROOT}``), ``None`` elsewhere.
    """

    name: str
    description: str
    path: Path
    root: Path
    scope: str
    shown: bool = True
    why: str = ""
    plugin_root: Path | None = None


@attrs.frozen
class Dropped:
    """A file the agent finds but does not load: ``path`` and a one-line ``reason``."""

    path: Path
    reason: str
    name: str = ""


@attrs.frozen
class AgentView:
    """What ``agent`` shows the model in ``cwd``.

    ``skills``: every loaded skill in listing order (hidden ones included, with
    ``shown=False``); ``dropped``: files skipped, with the reason;
    ``warnings``: one line each (duplicate names, unstable picks, budget);
    ``listing``: the listing text byte for byte as the agent sends it.
    """

    agent: str
    cwd: Path
    skills: tuple[ViewSkill, ...]
    dropped: tuple[Dropped, ...]
    warnings: tuple[str, ...]
    listing: str

    @property
    def shown(self) -> tuple[ViewSkill, ...]:
        """The skills the agent lists to the model, in listing order."""
        return tuple(s for s in self.skills if s.shown)

    def invocation(self, name: str, args: str = "") -> str | None:
        """The text the agent's skill tool gives the model for ``name`` (``None`` when the
        agent has no such skill, or no skill tool: Codex reads ``SKILL.md`` itself).

        Claude Code (``Skill`` tool, after ``Launching skill: NAME``): ``Base directory
        for this skill: DIR``, a blank line, then the body with ``$ARGUMENTS``-style
        arguments substituted. OpenCode (``skill`` tool): a ``<skill_content>`` block
        with the body, the base directory and up to 10 of the skill's other files.
        """
        if self.agent == "codex":
            return None
        skill = self._lookup(name)
        if skill is None:
            return None
        raw = _read(skill.path)
        if raw is None:
            return None
        if raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        _block, body, _problem = _split(raw, opener="exact")
        if self.agent == "claude-code":
            from skillpath.transforms import substitute_arguments

            meta, _ = _claude_meta(raw)
            names = meta.get("arguments") or ()
            if isinstance(names, str):
                names = names.split()
            keys = [str(n) for n in names]
            if skill.plugin_root is not None:
                body = body.replace("${CLAUDE_PLUGIN_ROOT}", str(skill.plugin_root))
            text = substitute_arguments(body, args, keys, append=False)
            if args and text == substitute_arguments(body, "", keys, append=False):
                text += f"\n\nARGUMENTS: {args}"  # no placeholder took them: appended as is
            if skill.path.name != "SKILL.md":
                return text  # a command is one file: no base directory
            return f"Base directory for this skill: {skill.path.parent}\n\n{text}"
        files = _sample_files(skill.path.parent)
        lines = [
            f'<skill_content name="{skill.name}">',
            f"# Skill: {skill.name}",
            "",
            body.strip(),
            "",
            f"Base directory for this skill: {skill.path.parent}",
            "Relative paths in this skill (e.g., scripts/, reference/) are relative to this "
            "base directory.",
            "Note: file list is sampled.",
            "",
            "<skill_files>",
            *(f"<file>{f}</file>" for f in files),
            "</skill_files>",
            "</skill_content>",
        ]
        return "\n".join(lines)

    def _lookup(self, name: str) -> ViewSkill | None:
        """The skill the agent's tool runs for ``name``: the one listed (or named, in
        Claude Code's ``folder (name)``) so; else the one plugin skill whose name ends in
        ``:name`` while only one does (Claude Code resolves a bare name so)."""
        for s in self.skills:
            if name in (s.name, _bare(s.name), _named(s.name)):
                return s
        if ":" in name or self.agent != "claude-code":
            return None
        tails = [
            s
            for s in self.skills
            if any(n.rpartition(":")[2] == name for n in (_bare(s.name), _named(s.name)))
        ]
        return tails[0] if len(tails) == 1 else None

    def explain(self, name: str) -> str:
        """One line: whether the agent shows ``name`` and, when not, why."""
        label = _LABELS[self.agent]
        hits = [s for s in self.skills if name in (s.name, _bare(s.name), s.path.parent.name)]
        shown = [s for s in hits if s.shown]
        if shown:
            where = ", ".join(str(s.path) for s in shown)
            extra = [w for w in self.warnings if f"'{name}'" in w]
            return f"{label} shows it ({where})" + (f"; {extra[0]}" if extra else "")
        if hits:
            return f"{label} loads it but does not list it: {hits[0].why}"
        for d in self.dropped:
            if name in (d.name, d.path.parent.name, d.path.stem):
                return f"{label} skips it: {d.reason} ({d.path})"
        return f"{label} does not find it: no {name} in any folder {label} reads"


_LABELS = {"claude-code": "Claude Code", "codex": "Codex", "opencode": "OpenCode"}
#: OpenCode's skill tool lists at most this many of a skill's files.
OPENCODE_SAMPLED_FILES = 10


def _sample_files(folder: Path) -> list[Path]:
    """Up to :data:`OPENCODE_SAMPLED_FILES` files of a skill folder besides ``SKILL.md``,
    sorted (OpenCode samples them with ``rg --files``; its order is not specified)."""
    out = []
    for path in sorted(folder.rglob("*")):
        if (
            path.is_file()
            and path.name != "SKILL.md"
            and not any(part.startswith(".") for part in path.relative_to(folder).parts)
        ):
            out.append(path)
    return out[:OPENCODE_SAMPLED_FILES]


def _bare(listed: str) -> str:
    return listed.split(" (", 1)[0]


def _named(listed: str) -> str:
    """``name`` of a Claude Code ``folder (name)`` entry (else the entry itself)."""
    if listed.endswith(")") and " (" in listed:
        return listed.split(" (", 1)[1][:-1]
    return listed


# --- shared helpers -----------------------------------------------------------


def repo_root(cwd: Path) -> Path | None:
    """The first directory from ``cwd`` up holding ``.git`` (a folder or a file)."""
    for d in (cwd, *cwd.parents):
        if (d / ".git").exists():
            return d
    return None


def _up(cwd: Path, stop: Path | None) -> list[Path]:
    """``cwd`` and its parents up to ``stop`` (included), nearest first."""
    out = []
    for d in (cwd, *cwd.parents):
        out.append(d)
        if stop is None or d == stop:
            break
    return out


_LINE = lazy_pattern(r"^([A-Za-z0-9_-]+)\s*:\s*(.*)$")


def _line_parse(text: str) -> dict[str, Any]:
    """``key: value`` lines, as the agents' fallbacks read a block YAML rejects."""
    out: dict[str, Any] = {}
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            value = m.group(2).strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            out[m.group(1)] = value
    return out


def _yaml(text: str) -> tuple[Any, str | None]:
    import yaml

    try:
        return yaml.safe_load(text), None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem", None) or type(e).__name__
        return None, str(mark)


def _js_string(value: Any) -> str | None:
    """``String(value)`` for a scalar the way a JavaScript agent prints it; else None."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return value
    return None


def _split(raw: bytes, *, opener: str) -> tuple[str | None, str, str]:
    """Split a file into ``(frontmatter, body, problem)``.

    ``opener`` is ``"exact"`` (first line ``---``, trailing blanks allowed) or
    ``"trimmed"`` (the first line stripped equals ``---``). ``problem`` names
    why there is no frontmatter (empty when there is one).
    """
    text = raw.decode("utf-8", "replace")
    lines = text.splitlines(keepends=True)
    if not lines:
        return None, text, "the file is empty"
    first = lines[0].rstrip("\r\n")
    ok = first.strip() == "---" if opener == "trimmed" else first.rstrip() == "---"
    if not ok:
        if not first.strip() and any(line.strip() == "---" for line in lines[1:3]):
            return None, text, "a blank line before the opening ---"
        return None, text, "no frontmatter (the first line is not ---)"
    for i in range(1, len(lines)):
        line = lines[i].rstrip("\r\n")
        closes = line.strip() == "---" if opener == "trimmed" else line.rstrip() == "---"
        if closes:
            return "".join(lines[1:i]), "".join(lines[i + 1 :]), ""
    return None, text, "the frontmatter is never closed (no second ---)"


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("true", "yes", "on", "1")


# --- Claude Code --------------------------------------------------------------


def claude_budget(env: Mapping[str, str], context_window: int | None = None) -> int:
    """Claude Code's listing budget: ``$SLASH_COMMAND_TOOL_CHAR_BUDGET`` when it is a
    positive integer, else ``context_window × 4 × 0.01``."""
    value = env.get(CLAUDE_BUDGET_ENV, "").strip()
    if value.isdigit() and int(value) > 0:
        return int(value)
    window = context_window or CLAUDE_CONTEXT_WINDOW
    return int(window * 4 * CLAUDE_BUDGET_FRACTION)


def _claude_description(meta: dict[str, Any], body: str) -> str:
    text = _js_string(meta.get("description"))
    if text is None or not text.strip():
        text = ""
        for line in body.splitlines():
            if line.strip():
                text = line.strip().lstrip("#").strip()
                break
    return text.strip()


def _claude_meta(raw: bytes) -> tuple[dict[str, Any], str]:
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    block, body, _problem = _split(raw, opener="exact")
    if block is None:
        return {}, body
    data, error = _yaml(block)
    if error is not None:
        data = {k: v for k, v in _line_parse(block).items() if not v.startswith(("[", "{"))}
    return (data if isinstance(data, dict) else {}), body


def _claude_entry(folder: str, meta: dict[str, Any], body: str) -> tuple[str, str]:
    named = _js_string(meta.get("name"))
    if named is not None and (not named.strip() or any(c.isspace() for c in named)):
        named = None  # Claude Code keeps the folder name alone for a name with blanks
    name = folder if not named or named == folder else f"{folder} ({named})"
    return name, _claude_description(meta, body)


def _json_file(path: Path) -> dict[str, Any]:
    raw = _read(path)
    if raw is None:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def claude_plugin_roots(
    home: Path, cwd: Path, env: Mapping[str, str] | None = None
) -> list[tuple[str, Path]]:
    """``(plugin name, folder)`` of every plugin Claude Code loads in ``cwd``, in its
    order (:func:`skillpath.claude_plugins.loaded_plugins`: installed, ``true`` in the
    merged ``enabledPlugins``, in the order of those keys; a directory marketplace's
    plugin read from that directory, not from its cache copy)."""
    return [(p.name, p.folder) for p in loaded_plugins(home, env or {}, cwd)]


def _plugin_entry(
    plugin: str, folder: Path, path: Path, scanned: Path, listed: str, seen: set[str]
) -> ViewSkill | None:
    raw = _read(path)
    if raw is None:
        return None
    meta, body = _claude_meta(raw)
    if path.name == "SKILL.md":
        own, desc = _claude_entry(path.parent.name, meta, body)
        folder_name, _, named = own.partition(" (")
        name = f"{plugin}:{folder_name}" + (f" ({plugin}:{named}" if named else "")
    else:
        name, desc = listed, _claude_description(meta, body)
    if _bare(name) in seen:
        return None
    seen.add(_bare(name))
    hidden = _bool(meta.get("disable-model-invocation", False))
    why = "disable-model-invocation: true keeps it out of the listing" if hidden else ""
    described = _js_string(meta.get("description"))
    if not hidden and not (described and described.strip()):
        hidden = True
        why = "no description in its frontmatter (Claude Code lists plugin entries only with one)"
    return ViewSkill(name, desc, path, scanned, "plugin", not hidden, why, folder)


def _claude_plugins(
    home: Path, cwd: Path, env: Mapping[str, str], seen: set[str]
) -> list[ViewSkill]:
    """Every plugin's commands (plugin by plugin, each by name), then every plugin's
    skills (plugin by plugin, root by root, each by folder name), as Claude Code lists
    them."""
    plugins = claude_plugin_roots(home, cwd, env)
    found: list[ViewSkill] = []
    for plugin, folder in plugins:
        for name, path, scanned in command_files(plugin, folder):
            entry = _plugin_entry(plugin, folder, path, scanned, name, seen)
            if entry is not None:
                found.append(entry)
    for plugin, folder in plugins:
        for _name, path, root in skill_files(plugin, folder):
            entry = _plugin_entry(plugin, folder, path, root, "", seen)
            if entry is not None:
                found.append(entry)
    return found


def _claude_plugins_skipped(home: Path, cwd: Path, env: Mapping[str, str]) -> list[Dropped]:
    """The entries of installed plugins Claude Code does not load, with the reason."""
    out = []
    for plugin, why in skipped_plugins(home, env, cwd):
        entries = [
            *command_files(plugin.name, plugin.folder),
            *skill_files(plugin.name, plugin.folder),
        ]
        out += [Dropped(path, why, name) for name, path, _root in entries]
    return out


def _claude(cwd: Path, home: Path, env: Mapping[str, str], window: int | None) -> AgentView:
    root = repo_root(cwd)
    config = config_dir(home, env, cwd)
    # managed skills first (they win a name), unless CLAUDE_CODE_DISABLE_POLICY_SKILLS
    managed = managed_dir(env) / ".claude"
    policy = not env.get("CLAUDE_CODE_DISABLE_POLICY_SKILLS")
    groups: list[tuple[str, Path]] = [("managed", managed / "skills")] if policy else []
    groups.append(("user", config / "skills"))
    groups += [("project", d / ".claude" / "skills") for d in _up(cwd, root or cwd)]
    skills: list[ViewSkill] = []
    dropped: list[Dropped] = []
    seen_names: set[str] = set()
    seen_real: set[str] = set()
    winner_scope: dict[str, str] = {}
    for scope, folder in groups:
        found = []
        try:
            children = sorted(os.listdir(folder))
        except OSError:
            continue
        for child in children:
            skill_md = folder / child / "SKILL.md"
            raw = _read(skill_md) if skill_md.is_file() else None
            if raw is None:
                continue
            real = os.path.realpath(skill_md)
            if real in seen_real:
                dropped.append(Dropped(skill_md, "the same file was already loaded", child))
                continue
            seen_real.add(real)
            if child in seen_names:
                where = winner_scope.get(child, scope)
                dropped.append(Dropped(skill_md, f"{child} is already loaded from {where}", child))
                continue
            seen_names.add(child)
            winner_scope[child] = scope
            meta, body = _claude_meta(raw)
            name, desc = _claude_entry(child, meta, body)
            hidden = _bool(meta.get("disable-model-invocation", False))
            found.append(
                ViewSkill(
                    name,
                    desc,
                    skill_md,
                    folder,
                    scope,
                    not hidden,
                    "disable-model-invocation: true keeps it out of the listing" if hidden else "",
                )
            )
        skills += found
    legacy: list[ViewSkill] = []
    for commands in [
        managed / "commands",
        config / "commands",
        *(d / ".claude" / "commands" for d in _up(cwd, root or cwd)),
    ]:
        if not commands.is_dir():
            continue
        for file in sorted(commands.rglob("*.md")):
            rel = file.relative_to(commands).with_suffix("")
            name = ":".join(rel.parts)
            if name in seen_names:
                continue
            raw = _read(file)
            if raw is None:
                continue
            seen_names.add(name)
            meta, body = _claude_meta(raw)
            desc = _claude_description(meta, body)
            hidden = _bool(meta.get("disable-model-invocation", False))
            legacy.append(ViewSkill(name, desc, file, commands, "commands", not hidden))
    skills += sorted(legacy, key=lambda s: s.name)
    skills += _claude_plugins(home, cwd, env, seen_names)
    dropped += _claude_plugins_skipped(home, cwd, env)
    listing, warnings = _claude_listing(skills, claude_budget(env, window))
    return AgentView("claude-code", cwd, tuple(skills), tuple(dropped), warnings, listing)


def _claude_text(desc: str) -> str:
    text = " ".join(desc.split("\n")).replace("<", "&lt;").replace(">", "&gt;")
    if len(text) > CLAUDE_ENTRY_CUT + 1:
        text = text[:CLAUDE_ENTRY_CUT] + "…"
    return text


def _claude_listing(skills: list[ViewSkill], budget: int) -> tuple[str, tuple[str, ...]]:
    shown = [s for s in skills if s.shown]
    full = [
        f"- {s.name}: {_claude_text(s.description)}" if s.description else f"- {s.name}"
        for s in shown
    ]
    if sum(len(line) + 1 for line in full) <= budget:
        return "\n".join(full), ()
    lines = [f"- {s.name}" for s in shown]
    used = sum(len(line) + 1 for line in lines)
    kept = 0
    for i, line in enumerate(full):
        extra = len(line)  # Claude Code charges the whole entry, its name again included
        if used + extra <= budget:
            lines[i] = line
            used += extra
            kept += 1
    warning = (
        f"over Claude Code's listing budget of {budget} characters: {len(shown) - kept} of "
        f"{len(shown)} skills are listed by name only, without a notice"
    )
    return "\n".join(lines), (warning,)


# --- Codex --------------------------------------------------------------------


def _codex_home(home: Path, env: Mapping[str, str]) -> Path:
    value = env.get("CODEX_HOME", "")
    return Path(value) if value else home / ".codex"


def _codex_roots(cwd: Path, home: Path, env: Mapping[str, str]) -> list[tuple[str, Path]]:
    root = repo_root(cwd)
    codex_home = _codex_home(home, env)
    roots: list[tuple[str, Path]] = []
    # the project's .codex layers: cwd up to the root; outside git cwd alone
    roots += [("repo", d / ".codex" / "skills") for d in _up(cwd, root or cwd)]
    roots += [
        ("user", codex_home / "skills"),
        ("user", home / ".agents" / "skills"),
        ("system", codex_home / "skills" / ".system"),
        ("admin", Path(env.get("SKILLPATH_CODEX_ADMIN_DIR", "/etc/codex/skills"))),
    ]
    if root is not None:
        roots += [("repo", d / ".agents" / "skills") for d in reversed(_up(cwd, root))]
    else:
        roots.append(("repo", cwd / ".agents" / "skills"))
    unique: list[tuple[str, Path]] = []
    for scope, path in roots:
        if all(path != p for _s, p in unique):
            unique.append((scope, path))
    return unique


def _codex_walk(root: Path, seen: list[str] | None = None) -> list[Path]:
    """``SKILL.md`` files under ``root``: breadth first, depth ≤ 6, dot entries skipped
    (``seen`` gets each folder listed and each entry that is a symlink)."""
    out: list[Path] = []
    queue: list[tuple[Path, int]] = [(root, 0)]
    visited = 0
    while queue and visited < CODEX_MAX_DIRS:
        folder, depth = queue.pop(0)
        visited += 1
        if seen is not None:
            seen.append(os.fspath(folder))
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            if e.name.startswith("."):
                continue
            if seen is not None and e.is_symlink():
                seen.append(e.path)
            if e.name == "SKILL.md" and depth > 0 and e.is_file():
                out.append(Path(e.path))
            elif e.is_dir() and depth < CODEX_MAX_DEPTH:
                queue.append((Path(e.path), depth + 1))
    return out


def codex_skill_files(root: Path, seen: list[str] | None = None) -> list[Path]:
    """The ``SKILL.md`` files Codex finds under one skills root, in its order: breadth
    first, up to :data:`CODEX_MAX_DEPTH` folders deep, dot entries skipped, a skill
    inside a skill's folder included (the walk the ``codex`` view and provider share).

    ``seen`` (a list) gets every path the answer depends on: each folder listed and
    each entry that is a symlink (see :func:`skillpath.cache.changes.kept_while_unchanged`).
    """
    return _codex_walk(root, seen)


def _has_surrogate(value: object) -> bool:
    """Whether a parsed YAML value holds a lone UTF-16 surrogate (from a ``\\uD83D``
    escape: YAML has no surrogate pairs, so even a pair is two of them)."""
    if isinstance(value, str):
        return any("\ud800" <= ch <= "\udfff" for ch in value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_surrogate(v) for v in value)
    return False


def _codex_parse(path: Path, raw: bytes) -> tuple[str, str] | str:
    """``(name, description)`` as Codex reads them, or the reason it drops the file."""
    if raw.startswith(b"\xef\xbb\xbf"):
        return "a UTF-8 BOM before the frontmatter"
    block, _body, problem = _split(raw, opener="trimmed")
    if block is None:
        return problem
    data, error = _yaml(block)
    if error is not None:
        data = _line_parse(block)
    elif _has_surrogate(data):
        return "a \\u escape of a UTF-16 surrogate in the frontmatter (Codex cannot read it)"
    if not isinstance(data, dict):
        data = {}
    name = _js_string(data.get("name")) or ""
    name = " ".join(name.split("\n")).strip() or path.parent.name
    if len(name) > CODEX_NAME_MAX:
        return f"the name is {len(name)} characters (Codex allows {CODEX_NAME_MAX})"
    raw_desc = data.get("description")
    desc = _js_string(raw_desc)
    if desc is None:
        kind = "missing" if raw_desc is None else f"a {type(raw_desc).__name__}, not a string"
        return f"no description (it is {kind})"
    desc = " ".join(desc.replace("\r\n", "\n").split("\n")).strip()
    if not desc:
        return "an empty description"
    if len(desc) > CODEX_DESCRIPTION_MAX:
        desc = desc[: CODEX_DESCRIPTION_MAX - 3] + "..."
    return name, desc


def _codex_config(codex_home: Path) -> dict[str, Any]:
    """``$CODEX_HOME/config.toml`` (empty when missing or unreadable)."""
    import tomllib  # only for a codex view, not for the provider's walk

    try:
        return tomllib.loads((codex_home / "config.toml").read_text())
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}


def _codex_disabled(config: Mapping[str, Any]) -> set[str]:
    skills = config.get("skills", {})
    entries = skills.get("config", []) if isinstance(skills, dict) else []
    out = set()
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry.get("enabled") is False and "path" in entry:
            out.add(os.path.abspath(os.path.expanduser(str(entry["path"]))))
    return out


def _codex_implicit(skill_dir: Path) -> bool:
    raw = _read(skill_dir / "agents" / "openai.yaml")
    if raw is None:
        return True
    data, error = _yaml(raw.decode("utf-8", "replace"))
    if error is not None or not isinstance(data, dict):
        return True
    policy = data.get("policy")
    return not (isinstance(policy, dict) and policy.get("allow_implicit_invocation") is False)


def _codex(cwd: Path, home: Path, env: Mapping[str, str], window: int | None) -> AgentView:
    roots = _codex_roots(cwd, home, env)
    config = _codex_config(_codex_home(home, env))
    disabled = _codex_disabled(config)
    skills: list[tuple[int, ViewSkill]] = []
    dropped: list[Dropped] = []
    for scope, root in roots:
        for skill_md in _codex_walk(root):
            raw = _read(skill_md)
            if raw is None:
                continue
            parsed = _codex_parse(skill_md, raw)
            if isinstance(parsed, str):
                dropped.append(Dropped(skill_md, parsed, skill_md.parent.name))
                continue
            name, desc = parsed
            why = ""
            if os.path.abspath(skill_md) in disabled:
                why = "[[skills.config]] enabled = false in config.toml"
            elif not _codex_implicit(skill_md.parent):
                why = "agents/openai.yaml sets policy.allow_implicit_invocation: false"
            skills.append(
                (
                    _SCOPE_RANK[scope],
                    ViewSkill(name, desc, skill_md, root, scope, not why, why),
                )
            )
    skills.sort(key=lambda t: (t[0], t[1].name.encode(), str(t[1].path).encode()))
    ordered = [s for _r, s in skills]
    warnings = []
    counts: dict[str, list[ViewSkill]] = {}
    for s in ordered:
        if s.shown:
            counts.setdefault(s.name, []).append(s)
    for name, copies in counts.items():
        if len(copies) > 1:
            where = ", ".join(str(c.path) for c in copies)
            warnings.append(
                f"'{name}' is listed {len(copies)} times by Codex ({where}); "
                f"${name} then pastes neither copy"
            )
    listing, notes = _codex_listing(ordered, [r for _s, r in roots], _codex_budget(config, window))
    warnings += notes
    return AgentView("codex", cwd, tuple(ordered), tuple(dropped), tuple(warnings), listing)


def _tokens(n_bytes: int) -> int:
    """Codex's token estimate: four bytes a token, rounded up."""
    return (n_bytes + 3) // 4


def _codex_fit(items: list[tuple[str, str, str]], limit: int) -> tuple[list[str], int, int]:
    """Codex's budget rule over ``(name, description, path)`` lines, in tokens.

    All lines in full when they fit; else every line at its minimum
    (``- name: (file: …)``) and the room left shared out one description
    character at a time, round robin in listing order; else minimum lines
    while they fit. Returns the lines, how many were shortened and omitted.
    """
    full = [f"- {n}: {d} (file: {p})" for n, d, p in items]
    if sum(_tokens(len(f"{line}\n".encode())) for line in full) <= limit:
        return full, 0, 0
    mins = [f"- {n}: (file: {p})" for n, _d, p in items]
    min_cost = sum(_tokens(len(f"{line}\n".encode())) for line in mins)
    if min_cost > limit:
        out, used = [], 0
        for line in mins:
            cost = _tokens(len(f"{line}\n".encode()))
            if used + cost <= limit:
                used += cost
                out.append(line)
        return out, len(out), len(mins) - len(out)
    remaining = limit - min_cost
    steps: list[list[int]] = []
    for (_n, d, _p), line in zip(items, mins, strict=True):
        base = len(line.encode()) + 1
        costs, prefix = [0], 0
        for ch in d:
            prefix += len(ch.encode())
            costs.append(_tokens(base + prefix + 1) - _tokens(base))
        steps.append(costs)
    given = [0] * len(items)
    spent = [0] * len(items)
    changed = True
    while changed:
        changed = False
        for i, (_n, d, _p) in enumerate(items):
            if given[i] >= len(d):
                continue
            delta = steps[i][given[i] + 1] - spent[i]
            if delta <= remaining:
                given[i] += 1
                spent[i] += delta
                remaining -= delta
                changed = True
    out = [
        f"- {n}: {d[:k]} (file: {p})" if k else f"- {n}: (file: {p})"
        for (n, d, p), k in zip(items, given, strict=True)
    ]
    return out, sum(1 for (_n, d, _p), k in zip(items, given, strict=True) if k < len(d)), 0


def _codex_body(intro: str, root_lines: list[str], lines: list[str]) -> str:
    """The text between Codex's ``<skills_instructions>`` tags."""
    parts = ["## Skills", intro]
    if root_lines:
        parts += ["### Skill roots", *root_lines]
    parts += ["### Available skills", *lines]
    return "\n" + "\n".join(parts) + "\n"


def _codex_table_cost(root_lines: list[str]) -> int:
    """What Codex charges the root alias table, in tokens: the empty aliased body's
    estimate minus the empty absolute-path body's (each rounded up on its own)."""
    aliased = _tokens(len(_codex_body(CODEX_INTRO, root_lines, []).encode()))
    absolute = _tokens(len(_codex_body(CODEX_INTRO_UNALIASED, [], []).encode()))
    return max(0, aliased - absolute)


class _CodexBudget(NamedTuple):
    """Codex's listing budget in tokens, where it comes from, and whether the model's
    metadata asks for the how-to text."""

    limit: int
    source: str
    how_to: bool


def _codex_budget(config: Mapping[str, Any], window: int | None) -> _CodexBudget:
    """``[skills] max_context_tokens`` (at most :data:`CODEX_MAX_CONFIGURED_TOKENS`) when
    set, else :data:`CODEX_BUDGET_PERCENT` of the context window: ``window`` when given,
    else the configured ``model``'s (:data:`CODEX_MODELS`), else
    :data:`CODEX_CONTEXT_WINDOW`."""
    model = config.get("model")
    known_window, how_to = (
        CODEX_MODELS.get(model, (CODEX_CONTEXT_WINDOW, False))
        if isinstance(model, str)
        else (CODEX_CONTEXT_WINDOW, False)
    )
    skills = config.get("skills")
    tokens = skills.get("max_context_tokens") if isinstance(skills, dict) else None
    if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > 0:
        limit = min(tokens, CODEX_MAX_CONFIGURED_TOKENS)
        return _CodexBudget(limit, f"[skills] max_context_tokens = {tokens}", how_to)
    window = window or known_window
    limit = max(1, window * CODEX_BUDGET_PERCENT // 100)
    return _CodexBudget(limit, f"{CODEX_BUDGET_PERCENT}% of a {window:,}-token window", how_to)


def _codex_listing(
    skills: list[ViewSkill], roots: list[Path], budget: _CodexBudget
) -> tuple[str, tuple[str, ...]]:
    shown = [s for s in skills if s.shown]
    if not shown:
        return "", ()
    used = [r for r in roots if any(s.root == r for s in shown)]
    alias = {r: f"r{i}" for i, r in enumerate(used)}
    items = [
        (s.name, s.description, f"{alias[s.root]}/{s.path.relative_to(s.root).as_posix()}")
        for s in shown
    ]
    root_lines = [f"- `{alias[r]}` = `{r}`" for r in used]
    limit = budget.limit
    entries, shortened, omitted = _codex_fit(items, max(0, limit - _codex_table_cost(root_lines)))
    body = _codex_body(CODEX_INTRO, root_lines, entries)
    if budget.how_to:
        body += f"### How to use skills\n{CODEX_HOW_TO}\n"
    notes = []
    if shortened or omitted:
        notes.append(
            f"over Codex's skills budget ({budget.source} = {limit:,} tokens): "
            f"{shortened} description(s) shortened, {omitted} skill(s) left out"
        )
    return f"<skills_instructions>{body}</skills_instructions>", tuple(notes)


# --- OpenCode -----------------------------------------------------------------


def _opencode_config_dir(home: Path, env: Mapping[str, str]) -> Path:
    value = env.get("XDG_CONFIG_HOME", "")
    base = Path(value) if value and Path(value).is_absolute() else home / ".config"
    return base / "opencode"


def _glob_skills(root: Path, *, dot: bool) -> list[Path]:
    """Every ``SKILL.md`` below ``root`` at any depth, symlinked folders followed."""
    out = []
    seen: set[str] = set()
    for folder, dirs, files in os.walk(root, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = sorted(d for d in dirs if dot or not d.startswith("."))
        if "SKILL.md" in files and Path(folder) != root:
            out.append(Path(folder) / "SKILL.md")
    return out


def _opencode_parse(raw: bytes) -> tuple[str, str] | str:
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    block, _body, problem = _split(raw, opener="exact")
    if block is None:
        if "never closed" in problem:
            return "no frontmatter (the opening --- is never closed)"
        return problem
    data, error = _yaml(block)
    if error is not None:
        repaired = "\n".join(_quote_colons(line) for line in block.splitlines())
        data, error2 = _yaml(repaired)
        if error2 is not None:
            return f"the frontmatter is not valid YAML ({error})"
    if not isinstance(data, dict):
        return "no name or description in the frontmatter"
    name, desc = data.get("name"), data.get("description")
    if not isinstance(name, str):
        return "no name" if name is None else f"the name is a {_js_type(name)}, not a string"
    if not isinstance(desc, str):
        return "no description" if desc is None else f"the description is a {_js_type(desc)}"
    return name, desc


def _js_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "list"
    return "mapping" if isinstance(value, dict) else type(value).__name__


_COLON_VALUE = lazy_pattern(r"^([A-Za-z0-9_-]+):\s+([^\"'\s].*:\s.*)$")


def _quote_colons(line: str) -> str:
    m = _COLON_VALUE.match(line)
    if not m:
        return line
    return f"{m.group(1)}: {json.dumps(m.group(2))}"


def _opencode_permission(config: Mapping[str, Any], name: str) -> str:
    perm = config.get("permission")
    rules = perm.get("skill") if isinstance(perm, dict) else None
    if isinstance(rules, str):
        return rules
    action = "allow"
    if isinstance(rules, dict):
        for pattern, value in rules.items():
            if fnmatch.fnmatchcase(name, str(pattern)):
                action = str(value)
    return action


def _opencode_config(cwd: Path, home: Path, env: Mapping[str, str]) -> dict[str, Any]:
    config: dict[str, Any] = {}
    files = [_opencode_config_dir(home, env) / "opencode.json"]
    root = repo_root(cwd)
    files += [d / "opencode.json" for d in reversed(_up(cwd, root or cwd))]
    for file in files:
        raw = _read(file)
        if raw is None:
            continue
        try:
            data = json.loads(raw)
        except ValueError:
            continue
        if isinstance(data, dict):
            config.update(data)
    inline = env.get("OPENCODE_CONFIG_CONTENT")
    if inline:
        try:
            data = json.loads(inline)
        except ValueError:
            data = None
        if isinstance(data, dict):
            config.update(data)
    return config


def _icu_key(name: str) -> tuple[tuple[int, str], ...]:
    """An approximation of ``localeCompare`` order: blanks, punctuation, digits, letters;
    letters case-insensitive first, lower case before upper case on a tie."""
    out = []
    for ch in name:
        if ch.isspace():
            out.append((0, ch))
        elif ch.isdigit():
            out.append((2, ch))
        elif ch.isalpha():
            out.append((3, ch.lower()))
        else:
            out.append((1, ch))
    return tuple(out)


def _opencode(cwd: Path, home: Path, env: Mapping[str, str]) -> AgentView:
    root = repo_root(cwd)
    scans: list[tuple[str, Path, bool]] = []
    if not env.get("OPENCODE_DISABLE_EXTERNAL_SKILLS"):
        scans += [("global", home / d / "skills", True) for d in (".claude", ".agents")]
        for d in _up(cwd, root):
            scans += [("project", d / x / "skills", True) for x in (".claude", ".agents")]
    config_dirs = [_opencode_config_dir(home, env)]
    config_dirs += [d / ".opencode" for d in reversed(_up(cwd, root))]
    for folder in config_dirs:
        scans += [("config", folder / x, False) for x in ("skill", "skills")]
    config = _opencode_config(cwd, home, env)
    by_name: dict[str, list[ViewSkill]] = {}
    dropped: list[Dropped] = []
    for scope, folder, dot in scans:
        for skill_md in _glob_skills(folder, dot=dot):
            raw = _read(skill_md)
            if raw is None:
                continue
            parsed = _opencode_parse(raw)
            if isinstance(parsed, str):
                dropped.append(Dropped(skill_md, parsed, skill_md.parent.name))
                continue
            name, desc = parsed
            denied = _opencode_permission(config, name) == "deny"
            why = "permission.skill denies it in opencode.json" if denied else ""
            by_name.setdefault(name, []).append(
                ViewSkill(name, desc, skill_md, folder, scope, not denied, why)
            )
    skills = []
    warnings = []
    for name in sorted(by_name, key=_icu_key):
        copies = by_name[name]
        skills.append(copies[-1])
        if len(copies) > 1:
            where = ", ".join(str(c.path) for c in copies)
            warnings.append(
                f"'{name}' is found {len(copies)} times ({where}); OpenCode keeps one copy, "
                "and which one is not stable between runs"
            )
            for c in copies[:-1]:
                dropped.append(Dropped(c.path, f"another copy of '{name}' may be picked", name))
    listing = _opencode_listing(skills)
    return AgentView("opencode", cwd, tuple(skills), tuple(dropped), tuple(warnings), listing)


def _opencode_listing(skills: Iterable[ViewSkill]) -> str:
    lines = ["<available_skills>"]
    for s in skills:
        if s.shown:
            lines += [
                "  <skill>",
                f"    <name>{s.name}</name>",
                f"    <description>{s.description}</description>",
                f"    <location>{s.path}</location>",
                "  </skill>",
            ]
    lines.append("</available_skills>")
    return "\n".join(lines)


# --- entry point --------------------------------------------------------------


@attrs.frozen
class Difference:
    """One way ``agent`` shows skillpath's skill ``name`` (at ``path``) differently."""

    name: str
    path: Path
    agent: str
    how: str

    def to_json(self) -> dict[str, str]:
        """``{name, path, agent, how}``."""
        return {"name": self.name, "path": str(self.path), "agent": self.agent, "how": self.how}


#: Folders named like an agent's (``<folder>/skills/<name>/SKILL.md``): a skill there that
#: no agent reads (``.agent`` singular, a folder above the repository root) is reported.
_AGENT_FOLDERS = frozenset({".agent", ".agents", ".claude", ".codex", ".opencode"})


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a == b or os.path.samefile(a, b)
    except OSError:
        return False


def differences(
    skills: Iterable[Any],
    cwd: Path | str,
    *,
    home: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    views: Mapping[str, AgentView] | None = None,
) -> list[Difference]:
    """How each agent would show skillpath's ``skills`` (objects with ``name``,
    ``description`` and ``path``) differently: not read, skipped, hidden, listed
    under another name or description, listed twice, or an unstable pick. One
    :class:`Difference` per skill and agent at most, in skill order then
    :data:`AGENTS` order; a skill every agent shows as skillpath does is absent,
    and so is one from a source none of the agents reads (a pack, a library, a
    skillpath-only folder): no agent shows it, so none shows it differently.
    """
    made = dict(views or {})
    for agent in AGENTS:
        if agent not in made:
            made[agent] = view(agent, cwd, home=home, env=env)
    out: list[Difference] = []
    for skill in skills:
        path = getattr(skill, "path", None)
        if path is None:
            continue
        path = Path(path)
        hows = {a: _difference(made[a], skill.name, skill.description, path) for a in AGENTS}
        unread = all(h.startswith(f"{_LABELS[a]} does not read") for a, h in hows.items())
        if unread and path.parent.parent.parent.name not in _AGENT_FOLDERS:
            continue  # a source only skillpath reads (packs, libraries, its own folders)
        out += [Difference(skill.name, path, a, h) for a, h in hows.items() if h]
    return out


def _difference(v: AgentView, name: str, description: str, path: Path) -> str:
    label = _LABELS[v.agent]
    for d in v.dropped:
        if _same_file(d.path, path):
            return f"{label} skips it: {d.reason}"
    mine = [s for s in v.skills if _same_file(s.path, path)]
    if not mine:
        return f"{label} does not read {path.parent.parent}"
    s = mine[0]
    if not s.shown:
        return f"{label} loads it but does not list it: {s.why}"
    if _bare(s.name) != name and s.name != name:
        return f"{label} lists it as {s.name!r}"
    twice = [w for w in v.warnings if w.startswith(f"'{s.name}' ")]
    if twice:
        return twice[0]
    if " ".join(s.description.split()) != " ".join(description.split()):
        return f"{label} lists another description: {s.description[:60]!r}"
    return ""


def skip_reason(agent: str, skill_md: Path | str) -> str | None:
    """Why ``agent`` would not load this ``SKILL.md`` (a short reason), or ``None`` when
    it loads it. Only the file's own content counts here (not where it lies, not
    duplicates or switches): this is the rule ``validate --target`` applies."""
    if agent not in AGENTS:
        raise ValueError(f"unknown agent {agent!r}: choose one of {', '.join(AGENTS)}")
    path = Path(skill_md)
    raw = _read(path)
    if raw is None:
        return "SKILL.md cannot be read"
    if agent == "claude-code":
        return None
    parsed = _codex_parse(path, raw) if agent == "codex" else _opencode_parse(raw)
    return parsed if isinstance(parsed, str) else None


def view(
    agent: str,
    cwd: Path | str | None = None,
    *,
    home: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    context_window: int | None = None,
) -> AgentView:
    """The view of ``agent`` (one of :data:`AGENTS`) started in ``cwd``.

    ``home`` defaults to ``$HOME``, ``env`` to ``os.environ`` (read for
    ``CODEX_HOME``, ``XDG_CONFIG_HOME``, ``SLASH_COMMAND_TOOL_CHAR_BUDGET``,
    ``CLAUDE_CODE_DISABLE_POLICY_SKILLS``, ``SKILLPATH_CLAUDE_MANAGED_DIR``,
    ``OPENCODE_CONFIG_CONTENT``, ``OPENCODE_DISABLE_EXTERNAL_SKILLS``);
    ``context_window`` is the model's window for the budget (default
    :data:`CLAUDE_CONTEXT_WINDOW` for Claude Code; for Codex the window of the
    ``model`` in ``$CODEX_HOME/config.toml`` (:data:`CODEX_MODELS`), else
    :data:`CODEX_CONTEXT_WINDOW`; OpenCode has no budget). Raises ``ValueError``
    for an unknown agent.
    """
    if agent not in AGENTS:
        raise ValueError(f"unknown agent {agent!r}: choose one of {', '.join(AGENTS)}")
    env = dict(os.environ if env is None else env)
    where = Path(cwd if cwd is not None else os.getcwd()).absolute()
    home_dir = Path(home) if home is not None else Path(env.get("HOME") or Path.home())
    if agent == "claude-code":
        return _claude(where, home_dir, env, context_window)
    if agent == "codex":
        return _codex(where, home_dir, env, context_window)
    return _opencode(where, home_dir, env)
