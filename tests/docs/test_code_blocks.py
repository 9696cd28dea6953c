"""Every code block in the README and the docs runs (or is checked) in a test.

Each fenced block is taken by its language:

``python``
    run in a fresh interpreter, in a sandbox (a private home, and a copy of the demo
    project or an empty git project as the working directory); ``project`` names that
    project and ``root`` a skills root inside it. A block that defines hook
    implementations is also registered as a plugin and a load must report no plugin
    error.
``sh`` (or ``bash``)
    run by ``bash -euo pipefail`` in the same sandbox, ``skillpath`` on ``PATH``; it
    must exit 0 (or the status a marker names).
``toml``
    parsed; a skillpath config (its first line names ``config.toml``) must load with
    no error diagnostic; ``pyproject`` snippets must be valid TOML.
``json``
    parsed; a block that shows the *shape* of a command's output names the command in
    its marker, and the command's real output must have exactly those top-level keys
    (and every key the shape names must occur in it).
``yaml``
    parsed.
``markdown``
    a ``SKILL.md`` example: it must pass ``skillpath validate`` for one of the agents
    skillpath knows (the Agent Skills standard, Claude Code, Codex …).
``text``
    output or a file tree: not code, shown as is.

A block without a language fails (say ``text`` for output). Blocks included with
``--8<--`` are read from the included file. A marker — an HTML comment right before
the block — adjusts the run::

    <!-- docs-test: fragment (why it cannot run on its own) -->
    <!-- docs-test: project=empty -->      (default: demo, a copy of examples/demo)
    <!-- docs-test: continue -->           (same sandbox as the page's previous block)
    <!-- docs-test: cwd=acme-skills -->    (run a shell block in this project subfolder)
    <!-- docs-test: exit=1 -->
    <!-- docs-test: shape=list --json -->
    <!-- docs-test: file=docs/examples/team_provider.py -->  (the block is this file, in full)

A fragment is skipped with its reason shown; the reason is required. Other options may
follow the reason (``fragment (why) where=clone``): ``tests/docs/test_tutorials.py``,
which runs the tutorials as written in a fresh environment, reads them.

The tutorials, the getting-started page and the README read correctly raw (as GitHub
shows them): their blocks copy a file (``file=``), checked here, instead of including it
with ``--8<--``, which only the rendered site expands.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
PAGES = [REPO / "README.md", *sorted(p for p in DOCS.rglob("*.md") if "_hooks" not in p.parts)]
BIN = Path(sys.executable).parent
LANGUAGES = {"python", "sh", "bash", "toml", "json", "yaml", "markdown", "text"}
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)(.*)$")
_MARKER = re.compile(r"^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$")
_SNIPPET = re.compile(r'^\s*--8<--\s+"([^"]+)"\s*$')


@attrs.frozen
class Block:
    """One fenced code block: where it is, its language, text and marker options."""

    page: Path
    line: int
    language: str
    text: str
    options: dict[str, str] = attrs.field(factory=dict, eq=False, hash=False)

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"

    @property
    def code(self) -> str:
        """The text, with ``--8<--`` includes replaced by the included files."""
        out = []
        for line in self.text.splitlines():
            m = _SNIPPET.match(line)
            out.append((REPO / m.group(1)).read_text(encoding="utf-8") if m else line + "\n")
        return "".join(out)


_FRAGMENT = re.compile(r"^fragment\s*(?:\((?P<reason>.*)\))?(?P<rest>[^()]*)$")


def _options(text: str) -> dict[str, str]:
    """A marker's options: ``key=value`` words, and ``fragment (reason)`` first."""
    text = text.strip()
    out: dict[str, str] = {}
    fragment = _FRAGMENT.match(text)
    if fragment:
        out["fragment"] = (fragment.group("reason") or "").strip()
        text = fragment.group("rest")
    for part in shlex.split(text):
        key, _, value = part.partition("=")
        out[key.strip()] = value.strip()
    return out


def blocks_of(page: Path) -> Iterator[Block]:
    """Every fenced block of ``page``, with the marker that precedes it."""
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        # (CommonMark: a backtick fence's info string holds no backtick; a line like
        # "```` ```! ````" is inline code, not a fence)
        if not m or (m.group(2)[0] == "`" and "`" in lines[i][m.end(2) :]):
            i += 1
            continue
        indent, fence, language = m.group(1), m.group(2), m.group(3)
        close = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j])
            j += 1
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        marker = _MARKER.match(lines[k]) if k >= 0 else None
        options = _options(marker.group(1)) if marker else {}
        yield Block(page, i + 1, language, "\n".join(body) + "\n", options)
        i = j + 1


ALL = [b for page in PAGES for b in blocks_of(page)]


def by(*languages: str) -> list[Any]:
    return [pytest.param(b, id=b.id) for b in ALL if b.language in languages]


def test_every_block_has_a_known_language() -> None:
    bad = [f"{b.id} ({b.language or 'no language'})" for b in ALL if b.language not in LANGUAGES]
    assert bad == [], "give each block one of " + ", ".join(sorted(LANGUAGES))


def test_fragments_say_why() -> None:
    assert [b.id for b in ALL if "fragment" in b.options and not b.options["fragment"]] == []


def test_there_are_blocks_of_each_kind() -> None:
    assert {b.language for b in ALL} >= {"python", "sh", "toml", "json"}


#: pages read as plain Markdown (GitHub, an editor): no include that only mkdocs expands
RAW_PAGES = [REPO / "README.md", DOCS / "index.md", *sorted((DOCS / "tutorials").glob("*.md"))]


@pytest.mark.parametrize("page", RAW_PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_tutorials_read_correctly_raw(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    includes = [line for line in text.splitlines() if _SNIPPET.match(line)]
    assert includes == [], f"{page.name}: copy the file into the block, marked file=PATH"
    generated = re.findall(r"<!-- (settings|cli-help|implementers|lint-codes|api-reference)", text)
    assert generated == [], f"{page.name}: a marker only the docs build fills in"


@pytest.mark.parametrize("block", [pytest.param(b, id=b.id) for b in ALL if "file" in b.options])
def test_a_block_marked_file_is_that_file(block: Block) -> None:
    source = (REPO / block.options["file"]).read_text(encoding="utf-8")
    assert block.text == source, f"{block.id}: copy {block.options['file']} into it again"


def test_file_blocks_exist_for_the_tutorials() -> None:
    marked = {b.options["file"] for b in ALL if "file" in b.options}
    assert {
        "docs/examples/agent_loop.py",
        "docs/examples/team_provider.py",
        "plugins/acme-policy/src/acme_policy/__init__.py",
    } <= marked


# -- the sandbox ---------------------------------------------------------------------


@attrs.define
class Sandbox:
    """A private home and a project to run a block in."""

    home: Path
    project: Path
    env: dict[str, str]


_SANDBOXES: dict[Path, Sandbox] = {}


def sandbox(block: Block, tmp_path: Path) -> Sandbox:
    """The block's sandbox: new, or the page's previous one with ``continue``."""
    if "continue" in block.options and block.page in _SANDBOXES:
        return _SANDBOXES[block.page]
    home = tmp_path / "home"
    home.mkdir()
    kind = block.options.get("project", "demo")
    project = tmp_path / "project"
    if kind == "demo":
        shutil.copytree(REPO / "examples" / "demo", project, symlinks=True)
    else:
        project.mkdir()
    (project / ".git").mkdir(exist_ok=True)
    env = {
        "HOME": str(home),
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "LANG": "C.UTF-8",
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "SKILLPATH_CLAUDE_POLICY_DIR": str(tmp_path / "etc-claude"),
        "SKILLPATH_CODEX_ADMIN_DIR": str(tmp_path / "etc-codex"),
        # the docs' examples, and what the test run itself put on the path (the
        # example plugins, see the root conftest)
        "PYTHONPATH": os.pathsep.join(
            p for p in (str(DOCS / "examples"), os.environ.get("PYTHONPATH", "")) if p
        ),
        "DOCS_PROJECT": str(project),
        "PYTHONDONTWRITEBYTECODE": "1",
        "SKILLPATH_LIBRARIES": "",  # the test environment's own libraries stay out
    }
    box = Sandbox(home, project, env)
    _SANDBOXES[block.page] = box
    return box


def _skip_fragment(block: Block) -> None:
    if "fragment" in block.options:
        pytest.skip(f"fragment: {block.options['fragment']}")


def _run(args: list[str], box: Sandbox, *, stdin: str | None = None) -> Any:
    return subprocess.run(
        args,
        cwd=box.project,
        env=box.env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


# -- python ----------------------------------------------------------------------------

_PYTHON_DRIVER = textwrap.dedent(
    """
    import os, sys, types
    from pathlib import Path

    project = Path(os.environ["DOCS_PROJECT"])
    root = project / "team-skills"
    namespace = {"__name__": "docs_block", "project": project, "root": root}
    code = sys.stdin.read()
    exec(compile(code, "<docs block>", "exec"), namespace)
    hooks = [v for v in namespace.values() if callable(v) and hasattr(v, "skillpath_impl")]
    if hooks:
        from skillpath import PluginHost, load_skills

        module = types.ModuleType("docs_block")
        module.__dict__.update(namespace)
        host = PluginHost.create(env={"SKILLPATH_NO_AUTOLOAD": "1"})
        assert host.add(module, "docs-block"), host.records
        result = load_skills(project, host=host)
        bad = [d for d in result.diagnostics if d.code.startswith("plugin-")]
        assert not bad, bad
    print("ok")
    """
)


@pytest.mark.parametrize("block", by("python"))
def test_python_blocks_run(block: Block, tmp_path: Path) -> None:
    _skip_fragment(block)
    box = sandbox(block, tmp_path)
    done = _run([sys.executable, "-c", _PYTHON_DRIVER], box, stdin=block.code)
    assert done.returncode == 0, f"{block.id}:\n{done.stderr}"
    assert done.stdout.rstrip().endswith("ok")


# -- sh --------------------------------------------------------------------------------


@pytest.mark.parametrize("block", by("sh", "bash"))
def test_shell_blocks_run(block: Block, tmp_path: Path) -> None:
    _skip_fragment(block)
    box = sandbox(block, tmp_path)
    cwd = box.project / block.options.get("cwd", ".")
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-euo", "pipefail", "-c", block.code],
        cwd=cwd,
        env=box.env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    expected = int(block.options.get("exit", "0"))
    assert done.returncode == expected, f"{block.id}:\n{done.stdout}\n{done.stderr}"
    assert "Traceback" not in done.stderr


# -- toml, json, yaml, markdown --------------------------------------------------------


@pytest.mark.parametrize("block", by("toml"))
def test_toml_blocks_parse_and_configs_load(block: Block, tmp_path: Path) -> None:
    _skip_fragment(block)
    data = tomllib.loads(block.code)
    first = block.code.lstrip().splitlines()[0] if block.code.strip() else ""
    if "config.toml" not in first and not (set(data) & {"skills", "mcp", "trust", "shell"}):
        return  # a pyproject or plugin snippet: valid TOML is all it claims
    from skillpath.settings import load_settings

    home = tmp_path / "sp-home"
    home.mkdir()
    (home / "config.toml").write_text(block.code, encoding="utf-8")
    _settings, diags = load_settings(home, None, home=tmp_path)
    errors = [d for d in diags if d.level == "error"]
    assert errors == [], f"{block.id}: {errors}"


def _keys(value: Any, opaque: set[str], depth: int = 2) -> set[str]:
    """Keys of the dicts in ``value`` down to ``depth`` levels (lists are looked
    through); the values of ``opaque`` keys (free-form maps) are not entered."""
    if depth == 0:
        return set()
    if isinstance(value, dict):
        inner = {
            k for key, v in value.items() if key not in opaque for k in _keys(v, opaque, depth - 1)
        }
        return set(value) | inner
    if isinstance(value, list):
        return {k for v in value for k in _keys(v, opaque, depth)}
    return set()


@pytest.mark.parametrize("block", by("json"))
def test_json_blocks_parse_or_match_their_command(block: Block, tmp_path: Path) -> None:
    _skip_fragment(block)
    shape = block.options.get("shape")
    if shape is None:
        json.loads(block.code)
        return
    box = sandbox(block, tmp_path)
    done = _run(["bash", "-c", "skillpath " + shape], box)
    assert done.returncode in (0, 1), done.stderr
    output = json.loads(done.stdout)
    split = lambda key: set(filter(None, block.options.get(key, "").split(",")))  # noqa: E731
    opaque, optional = split("opaque"), split("optional")
    named = set(re.findall(r'"([A-Za-z_]+)"', block.code))
    found = _keys(output, opaque)
    assert found <= named, f"{block.id}: the output has {sorted(found - named)}, the shape not"
    missing = named - found - optional
    assert not missing, f"{block.id}: the shape names {sorted(missing)}, the output lacks them"


@pytest.mark.parametrize("block", by("yaml"))
def test_yaml_blocks_parse(block: Block) -> None:
    _skip_fragment(block)
    yaml.safe_load(block.code)


@pytest.mark.parametrize("block", by("markdown"))
def test_skill_examples_validate(block: Block, tmp_path: Path) -> None:
    _skip_fragment(block)
    from skillpath.lint import lint_skill_dir

    folder = tmp_path / "example"
    folder.mkdir()
    text = block.code
    name = re.search(r"^name:\s*(\S+)", text, re.MULTILINE)
    if name:
        folder = folder.rename(tmp_path / name.group(1))
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    from skillpath.lint import TARGETS

    verdicts = {
        target: [f for f in lint_skill_dir(folder, target) if f.level == "error"]
        for target in TARGETS
    }
    assert any(not errors for errors in verdicts.values()), f"{block.id}: {verdicts}"
