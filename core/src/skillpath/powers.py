"""An exported skill is no more powerful than its source.

skillpath decides what a skill may do: its ``[shell]`` policy lets only the
levels in ``levels`` (default ``user`` and ``managed``) run inline shell, and
never a skill loaded over MCP. A copy written into another agent's folder
(``skillpath export``, the Claude Code plugin writer) is read by that agent
with no such policy, so the copy itself must not carry more than skillpath
would grant:

* **inline shell** — :func:`neutralise_shell` replaces every command form
  skillpath runs with :data:`~skillpath.shell.DISABLED_TEXT` and then breaks
  every remaining `` !` `` and ```` ```! ```` opener (Claude Code has been
  reported to run `` !`…` `` after a backtick, after any character, and
  across lines), so no form is left for the agent to run;
* **powers in frontmatter** — :data:`POWER_FIELDS`: ``hooks`` (shell commands
  Claude Code runs on tool events), ``allowed-tools`` (tools used without
  asking), ``context`` and ``agent`` (the skill runs in a sub-agent of the
  source's choosing) and ``mcp-servers`` (servers started for it). They are
  left out of the copy of a skill below the hand-written tier.

The hand-written tier is the levels ``[shell] levels`` names (a skill whose
inline shell skillpath would run may keep its powers), whether or not
``[shell] enabled`` is on; skills of provider ``managed`` count as level
``learned``, MCP skills are never in it, and neither is a skill whose trust tier
may not run shell (:mod:`skillpath.trust`). Under the defaults ``project``,
``package`` and ``remote`` skills are below it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from skillpath.shell import DISABLED_TEXT, LEARNED_LEVEL, SHELL_RE

if TYPE_CHECKING:
    from skillpath.model import Skill
    from skillpath.shell import ShellPolicy

__all__ = [
    "CODEX_METADATA",
    "POWER_FIELDS",
    "hand_written",
    "has_shell",
    "link_refusal",
    "neutralise_shell",
    "power_fields",
    "strip_file_powers",
]

#: Frontmatter fields that grant a skill powers in the agent reading it (kebab-case;
#: ``allowed_tools`` and ``allowedTools`` spellings count too).
POWER_FIELDS = ("hooks", "allowed-tools", "context", "agent", "mcp-servers")

#: Codex's per-skill metadata file; its ``dependencies`` (MCP servers Codex offers to
#: install into the user's global config) are left out of a lower tier's copy.
CODEX_METADATA = "agents/openai.yaml"

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _kebab(key: str) -> str:
    return _CAMEL.sub("-", key).replace("_", "-").lower()


def hand_written(skill: Skill, policy: ShellPolicy) -> bool:
    """Whether ``skill``'s level is one whose powers an export keeps (see the module)."""
    if skill.source.loaded_from == "mcp":
        return False
    level = LEARNED_LEVEL if skill.source.provider == "managed" else skill.source.level
    return level in policy.levels and policy.tier_refusal(skill) is None


def power_fields(skill: Skill, policy: ShellPolicy) -> tuple[str, ...]:
    """The frontmatter keys (as spelled) an export of ``skill`` must leave out, in order."""
    if hand_written(skill, policy):
        return ()
    return tuple(k for k in skill.frontmatter.raw if _kebab(str(k)) in POWER_FIELDS)


def strip_file_powers(files: dict[str, bytes], skill: Skill, policy: ShellPolicy) -> list[str]:
    """Take out of ``files`` (a skill's sibling files) what grants powers, for a
    skill below the hand-written tier; return what was taken, for a warning.

    :data:`CODEX_METADATA` loses its ``dependencies`` key (kept otherwise:
    its ``interface`` and ``policy`` only describe and restrict); when it is not
    a YAML mapping it is left out whole.
    """
    if hand_written(skill, policy) or CODEX_METADATA not in files:
        return []
    import yaml

    try:
        data = yaml.safe_load(files[CODEX_METADATA].decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError):
        data = None
    if not isinstance(data, dict):
        del files[CODEX_METADATA]
        return [f"{CODEX_METADATA} (not a YAML mapping; left out)"]
    if "dependencies" not in data:
        return []
    del data["dependencies"]
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=10_000) if data else ""
    files[CODEX_METADATA] = text.encode("utf-8")
    return [f"{CODEX_METADATA} dependencies"]


def has_shell(text: str) -> bool:
    """Whether ``text`` holds anything an agent could run as inline shell: a `` !` ``
    anywhere (whatever precedes it) or a ```` ```! ```` fence opener."""
    return "!`" in text or "```!" in text


def neutralise_shell(text: str) -> str:
    """``text`` with no inline shell left for any reader to run.

    Each command skillpath itself recognises (:data:`~skillpath.shell.SHELL_RE`:
    `` !`cmd` `` at a line start or after whitespace, ```` ```! ```` blocks)
    becomes :data:`~skillpath.shell.DISABLED_TEXT`; every other `` !` `` becomes
    `` ! ` `` and every other ```` ```! ```` becomes ```` ``` ! ```` (the
    forms other readers run: after a backtick, after a letter, a command that
    spans lines, an indented fence). The result contains neither opener.
    """
    if not has_shell(text):
        return text
    text = SHELL_RE.sub(DISABLED_TEXT, text)
    return text.replace("!`", "! `").replace("```!", "``` !")


def link_refusal(
    skill: Skill, policy: ShellPolicy, text: str, siblings: dict[str, bytes] | None = None
) -> str | None:
    """Why ``skill`` (whose ``SKILL.md`` is ``text``, and whose sibling files
    include ``siblings``) may not be linked into an agent's folder, or ``None``:
    a link shows the agent the source itself, so a skill whose copy would need
    neutralising is never linked."""
    what = strip_file_powers(dict(siblings or {}), skill, policy)
    if not policy.allows(skill) and has_shell(text):
        what.append("inline shell")
    fields = power_fields(skill, policy)
    if fields:
        what.append("frontmatter " + ", ".join(repr(f) for f in fields))
    if not what:
        return None
    return (
        f"skill {skill.name!r} ({skill.source.level}) is not linked: its "
        f"{' and '.join(what)} would reach the agent through a link unneutralised; "
        "copied with them neutralised instead"
    )
