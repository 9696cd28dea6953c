"""A cross-agent lint of skill folders (``skillpath validate``).

The open Agent Skills rules (agentskills.io and its reference validator) plus
the limits of each popular agent. Every finding has a stable ``code``, a
``level`` (``error``, ``warning``, ``info``), a message and ``path:line`` (the
line of the offending frontmatter key when there is one).

Targets:

``agents`` (the default)
    What the agents skillpath supports would do with the skill: a field that
    Claude Code, Codex, OpenCode, Copilot, oh-my-pi, skillpath or the Agent
    Skills standard reads is fine, an unknown field is a warning; errors are
    what makes the skill fail to load somewhere (OpenCode's name rules,
    Codex's required description of at most 1,024 characters, YAML a strict
    parser rejects, a ``SKILL.md`` that cannot be read or leaves its folder).
``agentskills``
    The open standard, strictly: ``name`` 1–64 lowercase letters, digits and
    hyphens (Unicode letters accepted after NFKC, as the reference validator
    does), no leading, trailing or double hyphen, equal to the directory name;
    ``description`` 1–1024 characters; ``compatibility`` at most 500;
    ``metadata`` a string→string map; only the standard fields; no flow-style
    collections (``[a, b]``, ``{a: b}``: the reference validator rejects them).
``claude``
    Claude Code: ``name`` is ignored for project skills (the directory name is
    the command), a missing description falls back to the first paragraph, one
    listing entry is cut at 1,536 characters, ``user-invocable`` is the
    spelling it reads, ``shell`` is ``bash`` or ``powershell``.
``codex``
    OpenAI Codex: a description is required and one longer than 1,024
    characters gets the skill rejected; ``name`` falls back to the directory.
``opencode``
    OpenCode: ``name`` must match ``^[a-z0-9]+(-[a-z0-9]+)*$`` and the
    directory, ``description`` 1–1024 characters.
``copilot``
    GitHub Copilot / VS Code: standard name and description rules, and the
    ``user-invokable`` spelling.

Use :func:`lint_skill_dir` for one folder or :func:`lint_paths` for what a
user passes on the command line (skill folders, skills roots or ``SKILL.md``
files).
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from skillpath.frontmatter import MAX_FILE_BYTES, coerce_bool, parse_frontmatter, split_frontmatter
from skillpath.model import Level
from skillpath.safety import is_inside, read_bounded

__all__ = [
    "AGENTS_FIELDS",
    "CODES",
    "DEFAULT_TARGET",
    "STANDARD_FIELDS",
    "TARGETS",
    "Finding",
    "has_errors",
    "iter_skill_dirs",
    "lint_paths",
    "lint_skill_dir",
    "name_problems",
]

#: Every target ``--target`` accepts; ``agents`` is the default.
TARGETS: tuple[str, ...] = ("agentskills", "claude", "codex", "opencode", "copilot", "agents")
#: The target ``validate`` applies without ``--target``.
DEFAULT_TARGET = "agents"

#: Top-level fields the open standard allows.
STANDARD_FIELDS = frozenset(
    {"name", "description", "license", "allowed-tools", "metadata", "compatibility"}
)
#: Fields Claude Code reads (besides the standard ones).
CLAUDE_FIELDS = STANDARD_FIELDS | {
    "when_to_use",
    "argument-hint",
    "arguments",
    "disable-model-invocation",
    "user-invocable",
    "disallowed-tools",
    "model",
    "effort",
    "context",
    "agent",
    "hooks",
    "paths",
    "shell",
}
#: Fields GitHub Copilot (VS Code) reads (besides the standard ones).
COPILOT_FIELDS = STANDARD_FIELDS | {"argument-hint", "user-invokable", "disable-model-invocation"}
#: Fields some agent skillpath supports reads: Claude Code, Copilot, Codex, OpenCode,
#: oh-my-pi (``globs``, ``alwaysApply``) and skillpath itself (``hide``).
AGENTS_FIELDS = (
    CLAUDE_FIELDS
    | COPILOT_FIELDS
    | {"hide", "globs", "alwaysApply", "always-apply", "always_apply", "when-to-use"}
)

NAME_MAX = 64
DESCRIPTION_MAX = 1024
COMPATIBILITY_MAX = 500
#: Claude Code cuts one listing entry (``- name: description``) at this many characters.
CLAUDE_ENTRY_MAX = 1536

_ASCII_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
_E, _W, _I, _OFF = "error", "warning", "info", None

#: code -> (meaning, level per target in TARGETS order; None = not reported).
CODES: dict[str, tuple[str, tuple[str | None, ...]]] = {
    "no-skill-file": ("the folder has no SKILL.md", (_E, _E, _E, _E, _E)),
    "skill-file-case": ("SKILL.md is spelled with other letter case", (_E, _E, _E, _E, _E)),
    "no-skills": ("a path holds no skill folder at all", (_E, _E, _E, _E, _E)),
    "unreadable": ("SKILL.md cannot be read", (_E, _E, _E, _E, _E)),
    "no-frontmatter": ("SKILL.md has no `---` frontmatter block", (_E, _W, _E, _E, _E)),
    "frontmatter-invalid": ("the frontmatter is not valid YAML / not a mapping", (_E,) * 5),
    "unquoted-colon": (
        "a plain value holds `: ` (`description: Use when: x`); strict YAML parsers reject it",
        (_E, _W, _E, _W, _W),
    ),
    "not-utf8": ("the file is not UTF-8", (_E, _E, _E, _E, _E)),
    "bom": ("the file starts with a UTF-8 BOM", (_W, _OFF, _OFF, _OFF, _OFF)),
    "name-missing": ("no `name` field", (_E, _OFF, _I, _E, _E)),
    "name-type": ("`name` is not a string", (_E, _W, _E, _E, _E)),
    "name-length": ("`name` is empty or longer than 64 characters", (_E, _W, _W, _E, _E)),
    "name-charset": (
        "`name` has characters other than lowercase letters, digits and `-`",
        (_E, _W, _W, _E, _E),
    ),
    "name-hyphen": ("`name` starts or ends with `-` or has `--`", (_E, _W, _W, _E, _E)),
    "name-dir-mismatch": ("`name` differs from the directory name", (_E, _W, _W, _E, _E)),
    "description-missing": ("no (or an empty) `description`", (_E, _W, _E, _E, _E)),
    "description-type": ("`description` is not a string", (_E, _E, _E, _E, _E)),
    "description-length": ("`description` is longer than 1024 characters", (_E, _W, _E, _E, _E)),
    "compatibility-type": ("`compatibility` is not a string", (_E, _W, _W, _W, _W)),
    "compatibility-length": ("`compatibility` is longer than 500 characters", (_E, _W, _W, _W, _W)),
    "license-type": ("`license` is not a string", (_E, _W, _W, _W, _W)),
    "metadata-type": ("`metadata` is not a string→string map", (_E, _W, _W, _W, _W)),
    "allowed-tools-type": (
        "`allowed-tools` is not a space-separated string",
        (_W, _OFF, _OFF, _OFF, _W),
    ),
    "unknown-field": ("a top-level field the target does not read", (_E, _I, _OFF, _OFF, _I)),
    "field-spelling": (
        "`user-invocable` / `user-invokable` spelled the way the target does not read",
        (_OFF, _W, _OFF, _OFF, _W),
    ),
    "bad-boolean": ("a boolean field with a value that is not a boolean", (_W, _W, _W, _W, _W)),
    "bad-value": ("a field with a value the target does not accept", (_OFF, _W, _OFF, _OFF, _OFF)),
    "listing-entry-length": (
        "the listing entry is longer than Claude Code shows (1,536 characters)",
        (_OFF, _W, _OFF, _OFF, _OFF),
    ),
    "empty-body": ("SKILL.md has no instructions after the frontmatter", (_W,) * 5),
    "placeholder-description": (
        "the description is still the text `skillpath new` writes (or a TODO)",
        (_W,) * 5,
    ),
    "flow-collection": (
        "a flow-style YAML collection (`[a, b]`, `{a: b}`); the reference validator rejects it",
        (_E, _OFF, _OFF, _OFF, _OFF),
    ),
    "dangling-symlink": ("SKILL.md is a symlink to nothing", (_E,) * 5),
    "agent-skips": (
        "the target agent does not load the file (its loader's rule, as `--agent` views show)",
        (_OFF, _E, _E, _E, _OFF),
    ),
    "skill-file-outside": ("SKILL.md is a symlink out of its folder", (_E,) * 5),
}

#: The ``agents`` target: errors only for what makes a skill fail to load somewhere.
_AGENTS_LEVELS: dict[str, str | None] = {
    "bom": _W,
    "compatibility-type": _W,
    "compatibility-length": _W,
    "license-type": _W,
    "metadata-type": _W,
    "allowed-tools-type": _OFF,
    "unknown-field": _W,
    "field-spelling": _OFF,
    "bad-boolean": _W,
    "bad-value": _OFF,
    "listing-entry-length": _OFF,
    "empty-body": _W,
    "placeholder-description": _W,
    "flow-collection": _OFF,
    "agent-skips": _OFF,
}
CODES = {
    code: (meaning, (*levels, _AGENTS_LEVELS.get(code, _E)))
    for code, (meaning, levels) in CODES.items()
}

#: Descriptions that are placeholders, not descriptions (the ``new``/``new-pack``
#: scaffold texts, TODO/TBD/FIXME).
_PLACEHOLDER = re.compile(
    r"\s*(?:describe what this skill does\b|(?:todo|tbd|fixme)(?:\s*[:.!-].*)?$)"
    r"|.*\breplace with what it does and when to use it\b",
    re.IGNORECASE | re.DOTALL,
)


@attrs.frozen
class Finding:
    """One lint finding.

    ``code`` is stable (see :data:`CODES`), ``level`` is ``error``, ``warning``
    or ``info``, ``path``/``line`` say where, ``targets`` lists the targets
    that report it.
    """

    code: str
    level: Level
    message: str
    path: Path
    line: int | None = None
    targets: tuple[str, ...] = ()

    def location(self) -> str:
        """``path:line`` (or ``path``) for display."""
        return f"{self.path}:{self.line}" if self.line else str(self.path)

    def to_json(self) -> dict[str, Any]:
        """The JSON shape of ``skillpath validate --json``."""
        return {
            "code": self.code,
            "level": self.level,
            "message": self.message,
            "path": str(self.path),
            "line": self.line,
            "targets": list(self.targets),
        }


def name_problems(name: str) -> list[str]:
    """Why ``name`` breaks the portable skill-name rule (``^[a-z0-9]+(-[a-z0-9]+)*$``,
    at most 64 characters), as human sentences; empty when it is fine."""
    problems = []
    if not name or len(name) > NAME_MAX:
        problems.append(f"must be 1–{NAME_MAX} characters (is {len(name)})")
    if any(not (c == "-" or "a" <= c <= "z" or "0" <= c <= "9") for c in name):
        problems.append("may only hold lowercase ASCII letters, digits and '-'")
    if name.startswith("-") or name.endswith("-") or "--" in name:
        problems.append("must not start or end with '-' or contain '--'")
    return problems


def has_errors(findings: Iterable[Finding]) -> bool:
    """True when any finding is at level ``error``."""
    return any(f.level == "error" for f in findings)


def _key_lines(fm_text: str) -> dict[str, int]:
    """Line (1-based, in the whole file) of each top-level key of the frontmatter."""
    out: dict[str, int] = {}
    for i, line in enumerate(fm_text.splitlines()):
        if not line or line[0] in " \t#-":
            continue
        m = re.match(r"""(["']?)([^"':]+)\1\s*:""", line)
        if m:
            out.setdefault(m.group(2).strip(), i + 2)  # +1 one-based, +1 opening fence
    return out


def _sub_key_line(fm_text: str, parent_line: int | None, key: str) -> int | None:
    """Line of ``key`` nested under the top-level key on ``parent_line``."""
    if parent_line is None:
        return None
    lines = fm_text.splitlines()
    for i in range(parent_line - 1, len(lines)):  # parent_line - 2 is the parent itself
        line = lines[i]
        if line and line[0] not in " \t":
            break
        if re.match(rf"""\s+(["']?){re.escape(key)}\1\s*:""", line):
            return i + 2
    return parent_line


class _Linter:
    def __init__(self, folder: Path, target: str) -> None:
        self.folder = folder
        self.target = target
        self.index = TARGETS.index(target)
        self.findings: list[Finding] = []

    def add(self, code: str, message: str, path: Path, line: int | None = None) -> None:
        level = CODES[code][1][self.index]
        if level is None:
            return
        self.findings.append(Finding(code, level, message, path, line, (self.target,)))  # type: ignore[arg-type]

    # -- the checks ---------------------------------------------------------
    def run(self) -> list[Finding]:
        folder = self.folder
        skill_file = folder / "SKILL.md"
        if os.path.islink(skill_file):
            # judged as the loader judges it, before anything is read through the link
            target = os.readlink(skill_file)
            if not os.path.exists(skill_file):
                self.add(
                    "dangling-symlink",
                    f"SKILL.md is a dangling symlink -> {target}; no agent can load it",
                    skill_file,
                )
                return self.findings
            if not is_inside(skill_file, folder):
                self.add(
                    "skill-file-outside",
                    f"SKILL.md is a symlink to {os.path.realpath(skill_file)}, outside its "
                    "folder; refused, not read (project skills must stay inside their folder)",
                    skill_file,
                )
                return self.findings
        if not skill_file.is_file():
            other = _case_variant(folder)
            if other is not None:
                self.add(
                    "skill-file-case",
                    f"found {other.name}; agents look for SKILL.md exactly",
                    other,
                )
            else:
                self.add("no-skill-file", "no SKILL.md in this folder", folder)
            return self.findings
        try:
            raw = read_bounded(skill_file, MAX_FILE_BYTES)
        except OSError as exc:
            self.add("unreadable", f"cannot read: {exc.strerror or exc}", skill_file)
            return self.findings
        self.check_file(skill_file, raw)
        return self.findings

    def check_file(self, path: Path, raw: bytes) -> None:
        if raw.startswith(b"\xef\xbb\xbf"):
            self.add("bom", "file starts with a UTF-8 BOM (the reference validator fails)", path, 1)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.add("not-utf8", f"not valid UTF-8 (byte {exc.start})", path)
        fm_raw, rest, _body_line = split_frontmatter(raw)
        if fm_raw is None:
            if raw.lstrip(b"\xef\xbb\xbf").startswith(b"---"):
                self.add(
                    "frontmatter-invalid", "frontmatter opened with `---` is never closed", path, 1
                )
            else:
                self.add(
                    "no-frontmatter", "the file must start with a `---` frontmatter block", path, 1
                )
            return
        fm_text = fm_raw.decode("utf-8", errors="replace").replace("\r\n", "\n")
        lines = _key_lines(fm_text)
        parsed = parse_frontmatter(raw, path)
        by_line = {line: key for key, line in lines.items()}
        for d in parsed.diagnostics:
            if d.code == "frontmatter-repaired":
                key = by_line.get(d.line or 0, "?")
                self.add(
                    "unquoted-colon",
                    f"the value of `{key}` holds an unquoted `: `; strict YAML parsers (the "
                    "skills-ref validator, Codex) reject the file: quote the value",
                    path,
                    d.line,
                )
                continue
            if (
                d.code in ("frontmatter-yaml-error", "frontmatter-not-mapping")
                or d.level == "error"
            ):
                if d.code == "not-utf8":
                    continue
                self.add("frontmatter-invalid", d.message, path, d.line or 2)
        data: Mapping[str, Any] = parsed.data
        if not parsed.recovered:
            for key, line in lines.items():
                value = fm_text.splitlines()[line - 2].split(":", 1)[1].strip()
                if value[:1] in ("[", "{"):
                    self.add(
                        "flow-collection",
                        f"`{key}` is a flow-style collection ({value[:40]}); the reference "
                        "validator rejects it: write it as a block list or a string",
                        path,
                        line,
                    )
        self.check_name(data, lines, path)
        self.check_description(data, lines, path)
        self.check_optional(data, lines, path, fm_text)
        self.check_fields(data, lines, path)
        if not rest.strip():
            self.add("empty-body", "no instructions after the frontmatter", path)

    def check_name(self, data: Mapping[str, Any], lines: dict[str, int], path: Path) -> None:
        dir_name = self.folder.name
        line = lines.get("name")
        if "name" not in data or data["name"] is None or data["name"] == "":
            self.add(
                "name-missing",
                f"no `name`; the directory name {dir_name!r} is used"
                if self.target in ("claude", "codex")
                else "`name` is required",
                path,
                line or 1,
            )
            return
        name = data["name"]
        if not isinstance(name, str):
            self.add("name-type", f"`name` must be a string, got {type(name).__name__}", path, line)
            return
        norm = unicodedata.normalize("NFKC", name) if self.target == "agentskills" else name
        if not norm or len(norm) > NAME_MAX:
            self.add(
                "name-length",
                f"`name` is {len(norm)} characters (1–{NAME_MAX} allowed)",
                path,
                line,
            )
        if self.target == "agentskills":
            bad = sorted({c for c in norm if not (c == "-" or (c.isalnum() and c == c.lower()))})
        else:
            bad = sorted({c for c in norm if not (c == "-" or "a" <= c <= "z" or "0" <= c <= "9")})
        if bad:
            shown = ", ".join(repr(c) for c in bad[:5])
            self.add(
                "name-charset",
                f"`name` {name!r} may only hold lowercase letters, digits and `-` (found {shown})",
                path,
                line,
            )
        if norm.startswith("-") or norm.endswith("-") or "--" in norm:
            self.add(
                "name-hyphen",
                f"`name` {name!r} must not start or end with `-` or contain `--`",
                path,
                line,
            )
        if norm != dir_name:
            if self.target == "claude":
                msg = (
                    f"Claude Code will call this skill /{dir_name} (its folder); skillpath "
                    f"and other agents use the frontmatter name {name!r} — rename the "
                    "folder or drop `name`"
                )
            elif self.target == "agents":
                msg = (
                    f"`name` {name!r} differs from the directory name {dir_name!r}: OpenCode "
                    f"and the standard refuse it, Claude Code calls it /{dir_name} — rename "
                    "the folder or the skill"
                )
            else:
                msg = f"`name` {name!r} must equal the directory name {dir_name!r}"
            self.add("name-dir-mismatch", msg, path, line)

    def check_description(self, data: Mapping[str, Any], lines: dict[str, int], path: Path) -> None:
        line = lines.get("description")
        desc = data.get("description")
        if desc is None or (isinstance(desc, str) and not desc.strip()):
            msg = (
                "no `description`; Claude Code falls back to the first paragraph of the body"
                if self.target == "claude"
                else "`description` is required (1–1024 characters)"
            )
            self.add("description-missing", msg, path, line or 1)
            return
        if not isinstance(desc, str):
            self.add(
                "description-type",
                f"`description` must be a string, got {type(desc).__name__}",
                path,
                line,
            )
            return
        if _PLACEHOLDER.match(desc):
            self.add(
                "placeholder-description",
                "the description is a placeholder; say what the skill does and when to use "
                "it (the model decides from this text alone)",
                path,
                line,
            )
        if len(desc) > DESCRIPTION_MAX:
            why = {
                "codex": "Codex cuts it to 1,021 characters and `...`",
                "claude": "other agents reject it",
            }.get(self.target, "the limit of the Agent Skills standard")
            self.add(
                "description-length",
                f"`description` is {len(desc)} characters (limit {DESCRIPTION_MAX}: {why})",
                path,
                line,
            )
        if self.target == "claude":
            entry = f"- {self.folder.name}: {desc}"  # the directory name is the command
            when = data.get("when_to_use")
            if isinstance(when, str) and when.strip():
                entry += f" {when.strip()}"
            if len(entry) > CLAUDE_ENTRY_MAX:
                self.add(
                    "listing-entry-length",
                    f"the listing entry is {len(entry)} characters; Claude Code cuts it at "
                    f"{CLAUDE_ENTRY_MAX} (description and when_to_use together)",
                    path,
                    line,
                )

    def check_optional(
        self, data: Mapping[str, Any], lines: dict[str, int], path: Path, fm_text: str
    ) -> None:
        if "compatibility" in data and data["compatibility"] is not None:
            comp = data["compatibility"]
            line = lines.get("compatibility")
            if not isinstance(comp, str):
                self.add("compatibility-type", "`compatibility` must be a string", path, line)
            elif len(comp) > COMPATIBILITY_MAX:
                self.add(
                    "compatibility-length",
                    f"`compatibility` is {len(comp)} characters (limit {COMPATIBILITY_MAX})",
                    path,
                    line,
                )
        if (
            "license" in data
            and data["license"] is not None
            and not isinstance(data["license"], str)
        ):
            self.add("license-type", "`license` must be a string", path, lines.get("license"))
        if "metadata" in data and data["metadata"] is not None:
            meta = data["metadata"]
            line = lines.get("metadata")
            if not isinstance(meta, Mapping):
                self.add(
                    "metadata-type",
                    f"`metadata` must be a map of strings, got {type(meta).__name__}",
                    path,
                    line,
                )
            else:
                for key, value in meta.items():
                    if not isinstance(value, str):
                        self.add(
                            "metadata-type",
                            f"`metadata.{key}` must be a string, got {type(value).__name__} "
                            "(quote it)",
                            path,
                            _sub_key_line(fm_text, line, str(key)),
                        )
        tools = data.get("allowed-tools")
        if tools is not None and not isinstance(tools, str):
            self.add(
                "allowed-tools-type",
                "`allowed-tools` should be one space-separated string",
                path,
                lines.get("allowed-tools"),
            )

    def check_fields(self, data: Mapping[str, Any], lines: dict[str, int], path: Path) -> None:
        known = {
            "agentskills": STANDARD_FIELDS,
            "claude": CLAUDE_FIELDS,
            "copilot": COPILOT_FIELDS,
            "agents": AGENTS_FIELDS,
        }.get(self.target)
        for key in data:
            line = lines.get(key)
            if self.target == "claude" and key == "user-invokable":
                self.add(
                    "field-spelling",
                    "Claude Code reads `user-invocable`; `user-invokable` is ignored",
                    path,
                    line,
                )
                continue
            if self.target == "copilot" and key == "user-invocable":
                self.add(
                    "field-spelling",
                    "Copilot (VS Code) reads `user-invokable`; `user-invocable` is ignored",
                    path,
                    line,
                )
                continue
            if known is not None and key not in known:
                where = {
                    "agentskills": "the Agent Skills standard does not allow",
                    "claude": "Claude Code does not read",
                    "copilot": "Copilot does not read",
                    "agents": "no agent skillpath supports reads",
                }[self.target]
                self.add("unknown-field", f"{where} the field `{key}`", path, line)
        for key in ("disable-model-invocation", "user-invocable", "user-invokable", "hide"):
            if key in data and coerce_bool(data[key]) is None:
                self.add(
                    "bad-boolean",
                    f"`{key}` must be true or false, got {data[key]!r}",
                    path,
                    lines.get(key),
                )
        if self.target == "claude":
            shell = data.get("shell")
            if shell is not None and shell not in ("bash", "powershell"):
                self.add(
                    "bad-value",
                    f"`shell` must be bash or powershell, got {shell!r}",
                    path,
                    lines.get("shell"),
                )
            context = data.get("context")
            if context is not None and context != "fork":
                self.add(
                    "bad-value",
                    f"`context` only accepts fork, got {context!r}",
                    path,
                    lines.get("context"),
                )


def _case_variant(folder: Path) -> Path | None:
    try:
        for entry in sorted(os.listdir(folder)):
            if entry.lower() == "skill.md" and entry != "SKILL.md":
                candidate = folder / entry
                if candidate.is_file():
                    return candidate
    except OSError:
        return None
    return None


def _holds_skill_file(folder: Path) -> bool:
    """A ``SKILL.md`` (a dangling symlink too: it is reported, not passed over) or a
    case variant of it."""
    skill_file = folder / "SKILL.md"
    return skill_file.is_file() or os.path.islink(skill_file) or _case_variant(folder) is not None


def lint_skill_dir(path: Path | str, target: str = DEFAULT_TARGET) -> list[Finding]:
    """Lint one skill folder (the directory holding ``SKILL.md``) for ``target``.

    :param path: the skill folder.
    :param target: one of :data:`TARGETS`.
    :returns: the findings, in file order (never raises for bad content).
    """
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r} (choose from {', '.join(TARGETS)})")
    findings = _Linter(Path(path), target).run()
    agent = _VIEW_AGENTS.get(target)
    skill_file = Path(path) / "SKILL.md"
    if agent is None or not skill_file.is_file():
        return findings
    return _as_the_agent_loads(findings, agent, target, skill_file)


#: The targets whose load rules come from an agent view (:mod:`skillpath.views`).
_VIEW_AGENTS = {"claude": "claude-code", "codex": "codex", "opencode": "opencode"}
_AGENT_LABELS = {"claude-code": "Claude Code", "codex": "Codex", "opencode": "OpenCode"}


def _as_the_agent_loads(
    findings: list[Finding], agent: str, target: str, skill_file: Path
) -> list[Finding]:
    """Make the errors agree with the agent: an error only when the agent's own loader
    skips the file (``agent-skips``); what it loads anyway is at most a warning."""
    from skillpath.views import skip_reason

    reason = skip_reason(agent, skill_file)
    label = _AGENT_LABELS[agent]
    if reason is None:
        return [
            attrs.evolve(f, level="warning", message=f"{f.message} ({label} loads it anyway)")
            if f.level == "error"
            else f
            for f in findings
        ]
    out = [f for f in findings if f.level != "error"]
    out.append(
        Finding("agent-skips", "error", f"{label} skips it: {reason}", skill_file, None, (target,))
    )
    return out


def iter_skill_dirs(
    path: Path | str, targets: Sequence[str] = TARGETS
) -> tuple[list[Path], list[Finding]]:
    """The skill folders a path stands for, and findings about the path itself.

    ``path`` may be a ``SKILL.md`` file, a skill folder (holds ``SKILL.md``) or
    a skills root (its sub-folders hold ``SKILL.md``; dot entries skipped).
    The findings name ``targets`` (the targets being checked).
    """
    p = Path(path)
    targets = tuple(targets)
    if p.is_file():
        if p.name.lower() == "skill.md":
            return [p.parent], []
        return [], [
            Finding("no-skill-file", "error", "not a SKILL.md file or a folder", p, None, targets)
        ]
    if not p.is_dir():
        return [], [Finding("no-skills", "error", "no such file or folder", p, None, targets)]
    if _holds_skill_file(p):
        return [p], []
    try:
        children = sorted(c for c in p.iterdir() if not c.name.startswith(".") and c.is_dir())
    except OSError as exc:
        return [], [Finding("no-skills", "error", f"cannot list: {exc}", p, None, targets)]
    dirs = [c for c in children if _holds_skill_file(c)]
    if not dirs:
        return [], [
            Finding(
                "no-skills",
                "error",
                "no SKILL.md in this folder or its direct sub-folders (pass a skill folder "
                "or a skills root such as .claude/skills; dot folders are not searched)",
                p,
                None,
                targets,
            )
        ]
    return dirs, []


def _merge(findings: Sequence[Finding]) -> list[Finding]:
    """Merge the same finding reported by several targets into one."""
    merged: dict[tuple[Any, ...], Finding] = {}
    for f in findings:
        key = (str(f.path), f.line, f.code, f.level, f.message)
        prev = merged.get(key)
        if prev is None:
            merged[key] = f
        else:
            merged[key] = attrs.evolve(prev, targets=prev.targets + f.targets)
    return list(merged.values())


def lint_paths(
    paths: Iterable[Path | str], targets: Sequence[str] = (DEFAULT_TARGET,)
) -> list[Finding]:
    """Lint every skill folder the ``paths`` stand for, for every target.

    Findings that several targets report identically are merged (their
    ``targets`` list all of them). Order: by path, then line, then code.
    """
    found: list[Finding] = []
    seen: set[Path] = set()
    for raw in paths:
        dirs, notes = iter_skill_dirs(raw, targets)
        found.extend(notes)
        for d in dirs:
            key = Path(os.path.abspath(d))
            if key in seen:
                continue
            seen.add(key)
            for target in targets:
                found.extend(lint_skill_dir(d, target))
    out = _merge(found)
    return sorted(out, key=lambda f: (str(f.path), f.line or 0, f.code, f.message))
