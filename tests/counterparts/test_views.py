"""Differential tests: each agent view (:mod:`skillpath.views`) against the real agent.

Each agent is run once per fixture tree against the scripted model API; the
skills listing is pulled out of the request it sent and compared with the
view, case by case (one case = one skill folder or command of the generated
tree, named by its folder) and then as whole bytes. The agents' own built-in
skills (Claude Code's ``plugin-authoring``, OpenCode's ``customize-opencode``)
are left out of the comparison.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agentrun import claude_listing, codex_listing, opencode_listing, run_agent
from cases import Tree, budget_tree, build_tree, codex_switches, frontmatter_cases, roots_tree
from fakemodel import FakeModel, fake_model
from skillpath import views
from skillpath.lint import lint_skill_dir
from skillpath.views import AgentView, view


def _case_ids() -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        t = build_tree(Path(tmp), frontmatter_root=".claude/skills", git=False)
        ids = {p.parent.name for p in Path(tmp).rglob("SKILL.md")}
        ids |= {p.parent.name for p in Path(tmp).rglob("skill.md")}
        ids |= {p.stem for p in t.repo.rglob("commands/**/*.md")}
        ids |= {p.stem for p in t.home.rglob("commands/*.md")}
    return sorted(ids - {"link-inside-target", "link-outside-target"})


CASES = _case_ids()


@pytest.fixture(scope="module")
def fm() -> Any:
    with fake_model() as server:
        yield server


def _env(t: Tree, agent: str) -> dict[str, str]:
    env = {"HOME": str(t.home)}
    if agent == "codex":
        env["CODEX_HOME"] = str(t.home / ".codex")
    if agent == "opencode":
        env["XDG_CONFIG_HOME"] = str(t.home / ".config")
    return env


class Run:
    """One agent run: the tree, the listing it sent, and the view of the same tree."""

    def __init__(self, t: Tree, real: str, v: AgentView) -> None:
        self.tree, self.real, self.view = t, real, v


def _run(
    agent: str,
    counterpart: Callable[[str], Path],
    fm: FakeModel,
    t: Tree,
    env: dict[str, str] | None = None,
    codex_config: str = "",
    codex_model: str = "fake",
) -> Run:
    command = counterpart(agent)
    bodies = run_agent(
        agent,
        command,
        fm,
        home=t.home,
        cwd=t.cwd,
        env=env,
        codex_config=codex_config,
        codex_model=codex_model,
    )
    pick = {"claude": claude_listing, "codex": codex_listing, "opencode": opencode_listing}[agent]
    real = pick(bodies)
    assert real is not None, f"{agent} sent no skills listing"
    name = "claude-code" if agent == "claude" else agent
    return Run(t, real, view(name, t.cwd, env={**_env(t, agent), **(env or {})}))


@pytest.fixture(scope="module")
def claude_run(counterpart: Callable[[str], Path], fm: FakeModel, tmp_path_factory: Any) -> Run:
    t = build_tree(tmp_path_factory.mktemp("claude"), frontmatter_root=".claude/skills")
    return _run("claude", counterpart, fm, t)


@pytest.fixture(scope="module")
def codex_run(counterpart: Callable[[str], Path], fm: FakeModel, tmp_path_factory: Any) -> Run:
    t = build_tree(tmp_path_factory.mktemp("codex"), frontmatter_root=".agents/skills")
    return _run("codex", counterpart, fm, t, codex_config=codex_switches(t))


@pytest.fixture(scope="module")
def opencode_run(counterpart: Callable[[str], Path], fm: FakeModel, tmp_path_factory: Any) -> Run:
    t = build_tree(tmp_path_factory.mktemp("opencode"), frontmatter_root=".agents/skills")
    return _run("opencode", counterpart, fm, t)


# --- reading each listing -----------------------------------------------------

CLAUDE_OWN = ("plugin-authoring",)


def claude_entries(listing: str) -> list[tuple[str, str]]:
    """(folder, line) per entry, the agent's own skills left out."""
    out = []
    for line in listing.split("\n"):
        folder = re.split(r"[: ]", line[2:], maxsplit=1)[0]
        if folder not in CLAUDE_OWN:
            out.append((folder, line))
    return out


def codex_entries(block: str) -> list[tuple[str, str, str, str]]:
    """(folder, name, description, absolute path) per line, aliases expanded."""
    roots = dict(re.findall(r"^- `(r\d+)` = `(.*)`$", block, re.M))
    out = []
    for name, desc, path in re.findall(r"^- (.*?): (.*) \(file: (.*)\)$", block, re.M):
        alias, _, rel = path.partition("/")
        full = f"{roots[alias]}/{rel}" if alias in roots else path
        out.append((Path(full).parent.name, name, desc, full))
    return out


def opencode_entries(block: str) -> list[tuple[str, str, str, str]]:
    """(folder, name, description, location) per skill, built-in skills left out."""
    found = re.findall(
        r"<skill>\n    <name>(.*?)</name>\n    <description>(.*?)</description>\n"
        r"    <location>(.*?)</location>\n  </skill>",
        block,
        re.S,
    )
    return [(Path(loc).parent.name, n, d, loc) for n, d, loc in found if loc.startswith("/")]


def _select(entries: list[Any], case: str) -> list[Any]:
    return [e for e in entries if e[0] == case]


# --- case by case ---------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_claude_case(claude_run: Run, case: str) -> None:
    real = _select(claude_entries(claude_run.real), case)
    mine = _select(claude_entries(claude_run.view.listing), case)
    assert mine == real, claude_run.view.explain(case)


@pytest.mark.parametrize("case", CASES)
def test_codex_case(codex_run: Run, case: str) -> None:
    real = _select(codex_entries(codex_run.real), case)
    mine = _select(codex_entries(codex_run.view.listing), case)
    assert mine == real, codex_run.view.explain(case)


def _opencode_candidates(v: AgentView, name: str) -> set[str]:
    return {str(d.path) for d in v.dropped if d.name == name and "another copy" in d.reason}


@pytest.mark.parametrize("case", CASES)
def test_opencode_case(opencode_run: Run, case: str) -> None:
    real = _select(opencode_entries(opencode_run.real), case)
    mine = _select(opencode_entries(opencode_run.view.listing), case)
    if real != mine and len(real) == len(mine) == 0:
        return
    # a duplicated name: OpenCode's pick is not stable, the view flags it; any copy is right
    for r in real:
        if r not in mine:
            candidates = _opencode_candidates(opencode_run.view, r[1])
            assert r[3] in candidates, opencode_run.view.explain(case)
    for m in mine:
        if m not in real:
            assert any(r[1] == m[1] for r in opencode_entries(opencode_run.real)), (
                opencode_run.view.explain(case)
            )
            assert _opencode_candidates(opencode_run.view, m[1]), opencode_run.view.explain(case)


# --- the whole listing ----------------------------------------------------------


def test_claude_listing_bytes(claude_run: Run) -> None:
    real = [line for _f, line in claude_entries(claude_run.real)]
    assert claude_run.view.listing.split("\n") == real


def test_codex_listing_bytes(codex_run: Run) -> None:
    assert codex_run.view.listing.split("\n") == codex_run.real.split("\n")


def test_opencode_listing_bytes(opencode_run: Run) -> None:
    real = opencode_entries(opencode_run.real)
    mine = opencode_entries(opencode_run.view.listing)
    assert [e[1] for e in mine] == [e[1] for e in real]
    # where a name is duplicated OpenCode's pick is unstable: take its copy if the view
    # names it as a candidate, then every entry must match byte for byte
    picked = []
    for m, r in zip(mine, real, strict=True):
        if m != r and r[3] in _opencode_candidates(opencode_run.view, r[1]):
            m = r
        picked.append(m)
    assert picked == real
    block = opencode_run.real
    assert block.startswith("<available_skills>\n  <skill>\n    <name>")
    assert opencode_run.view.listing.startswith("<available_skills>\n  <skill>\n    <name>")


def test_codex_lists_a_duplicate_twice_and_the_view_warns(codex_run: Run) -> None:
    real = [e[1] for e in codex_entries(codex_run.real)]
    assert real.count("dup-root-cwd-agents") == 2
    assert any("'dup-root-cwd-agents' is listed 2 times" in w for w in codex_run.view.warnings)


def test_codex_explain_says_why_in_one_line(codex_run: Run) -> None:
    line = codex_run.view.explain("fm-bom")
    assert line.startswith("Codex skips it: a UTF-8 BOM before the frontmatter")
    assert "\n" not in line
    hidden = codex_run.view.explain("sw-implicit-off")
    assert "allow_implicit_invocation" in hidden


def test_opencode_permission_deny_hides(opencode_run: Run) -> None:
    assert "sw-denied" not in [e[1] for e in opencode_entries(opencode_run.real)]
    assert "permission.skill" in opencode_run.view.explain("sw-denied")


# --- budgets and the no-git rule -------------------------------------------------


def test_claude_budget_300(
    counterpart: Callable[[str], Path], fm: FakeModel, tmp_path: Path
) -> None:
    t = budget_tree(tmp_path, ".claude/skills")
    run = _run("claude", counterpart, fm, t, env={"SLASH_COMMAND_TOOL_CHAR_BUDGET": "8000"})
    real = [line for _f, line in claude_entries(run.real)]
    assert run.view.listing.split("\n") == real
    full = sum(1 for line in real if ": " in line)
    assert 0 < full < 300
    assert run.view.warnings


def test_codex_outside_git_reads_only_cwd(
    counterpart: Callable[[str], Path], fm: FakeModel, tmp_path: Path
) -> None:
    t = build_tree(tmp_path, frontmatter_root=".agents/skills", git=False)
    run = _run("codex", counterpart, fm, t)
    assert run.view.listing == run.real
    names = {e[1] for e in codex_entries(run.real)}
    assert "loc-cwd-agents" in names and "loc-root-agents" not in names


def test_opencode_300_no_budget(
    counterpart: Callable[[str], Path], fm: FakeModel, tmp_path: Path
) -> None:
    t = budget_tree(tmp_path, ".opencode/skills")
    run = _run("opencode", counterpart, fm, t)
    real = opencode_entries(run.real)
    assert len(real) == 300
    assert opencode_entries(run.view.listing) == real


def test_views_agree_with_the_environment_they_are_given() -> None:
    with pytest.raises(ValueError, match="unknown agent"):
        view("copilot", os.getcwd())


# --- validate --target uses the agent's own rules ---------------------------------

FRONTMATTER = sorted(frontmatter_cases())
HIDDEN = {"fm-hidden"}  # loaded, but kept out of Claude Code's listing


def _loaded(run: Run, folder: str, entries: Callable[[str], list[Any]]) -> bool:
    return (folder in HIDDEN and run.view.agent == "claude-code") or any(
        e[0] == folder for e in entries(run.real)
    )


@pytest.mark.parametrize("case", FRONTMATTER)
@pytest.mark.parametrize("agent", ["claude", "codex", "opencode"])
def test_validate_target_agrees_with_the_agent(
    agent: str, case: str, claude_run: Run, codex_run: Run, opencode_run: Run
) -> None:
    run, entries, root = {
        "claude": (claude_run, claude_entries, ".claude/skills"),
        "codex": (codex_run, codex_entries, ".agents/skills"),
        "opencode": (opencode_run, opencode_entries, ".agents/skills"),
    }[agent]
    findings = lint_skill_dir(run.tree.repo / root / case, agent)
    errors = [f for f in findings if f.level == "error"]
    assert bool(errors) == (not _loaded(run, case, entries)), findings


@pytest.mark.parametrize("count", [120, 300])
def test_codex_budget(
    counterpart: Callable[[str], Path], fm: FakeModel, tmp_path: Path, count: int
) -> None:
    t = budget_tree(tmp_path, ".agents/skills", count)
    run = _run("codex", counterpart, fm, t)
    assert run.view.listing == run.real
    full = {s.name: s.description for s in run.view.shown}
    real = codex_entries(run.real)
    assert len(real) == count + 4  # and Codex's four .system skills
    assert all(full[e[1]].startswith(e[2]) for e in real)
    assert any(len(e[2]) < len(full[e[1]]) for e in real)
    assert any("over Codex's skills budget" in w for w in run.view.warnings)


def _tokens(line: str) -> int:
    """Codex's estimate for one listing line: four bytes a token (newline included)."""
    return (len(f"{line}\n".encode()) + 3) // 4


def _codex_costs(v: AgentView) -> tuple[int, int]:
    """(all descriptions in full, no descriptions) in tokens for the view's skills, the
    root alias table priced as Codex prices it: the aliased body's estimate over the
    absolute-path body's."""
    roots = re.findall(r"^- `r\d+` = `.*`$", v.listing, re.M)
    head = v.listing.split("### Available skills\n")[0].removeprefix("<skills_instructions>")
    absolute = f"\n## Skills\n{views.CODEX_INTRO_UNALIASED}\n"
    table = (len(f"{head}### Available skills\n".encode()) + 3) // 4 - (
        len(f"{absolute}### Available skills\n".encode()) + 3
    ) // 4
    assert roots and table > 0
    lines = codex_entries(v.listing)
    alias = {path: short for short, path in re.findall(r"^- `(r\d+)` = `(.*)`$", v.listing, re.M)}

    def short(path: str) -> str:
        root = max((r for r in alias if path.startswith(r + "/")), key=len)
        return f"{alias[root]}/{path[len(root) + 1 :]}"

    described = {s.name: s.description for s in v.shown}
    full = sum(_tokens(f"- {n}: {described[n]} (file: {short(p)})") for _f, n, _d, p in lines)
    bare = sum(_tokens(f"- {n}: (file: {short(p)})") for _f, n, _d, p in lines)
    return table + full, table + bare


@pytest.mark.parametrize("per_root", [4, 12, 40])
def test_codex_budget_many_roots(
    counterpart: Callable[[str], Path], fm: FakeModel, tmp_path: Path, per_root: int
) -> None:
    # eight or nine roots in the alias table, descriptions of 5 to 400 characters with
    # two-, three- and four-byte characters: the share-out is exact, byte for byte
    t = roots_tree(tmp_path, per_root, seed=per_root)
    run = _run("codex", counterpart, fm, t)
    assert run.view.listing == run.real
    assert len(re.findall(r"^- `r\d+` = ", run.real, re.M)) == 9


@pytest.mark.parametrize("edge", ["full", "full-1", "bare", "bare-1"])
def test_codex_budget_boundaries(
    counterpart: Callable[[str], Path], fm: FakeModel, tmp_path: Path, edge: str
) -> None:
    # [skills] max_context_tokens set to exactly what every description in full costs
    # (then one token less), and to exactly the cost of no descriptions (then one less:
    # a skill is left out)
    t = roots_tree(tmp_path, 4, seed=5)
    # a first run unpacks Codex's .system skills, which the budget counts too
    first = _run("codex", counterpart, fm, t)
    assert first.view.listing == first.real
    full, bare = _codex_costs(first.view)
    budget = {"full": full, "full-1": full - 1, "bare": bare, "bare-1": bare - 1}[edge]
    run = _run(
        "codex", counterpart, fm, t, codex_config=f"[skills]\nmax_context_tokens = {budget}\n"
    )
    assert run.view.listing == run.real
    entries = re.findall(r"^- (.*?): (?:(.*) )?\(file: (.*)\)$", run.real, re.M)
    described = {s.name: s.description for s in run.view.shown}
    cut = [e for e in entries if e[1] != described[e[0]]]
    if edge == "full":
        assert not cut and not run.view.warnings
    elif edge == "bare":
        # only the room the minimum lines' rounding leaves: under four bytes each
        assert len(entries) == len(described) and all(len(e[1].encode()) < 4 for e in cut)
    elif edge == "bare-1":
        assert len(entries) == len(described) - 1
    else:
        assert cut and len(entries) == len(described)


@pytest.mark.parametrize(
    ("model", "window", "how_to"),
    [("gpt-6.1-sol", 500_000, False), ("gpt-5.5", 272_000, True), ("fake", 272_000, False)],
)
def test_codex_budget_model_metadata(
    counterpart: Callable[[str], Path],
    fm: FakeModel,
    tmp_path: Path,
    model: str,
    window: int,
    how_to: bool,
) -> None:
    # a model Codex ships metadata for sets the window (and may ask for the how-to
    # text); any other model gets the fallback window
    t = roots_tree(tmp_path, 20, seed=11)
    run = _run("codex", counterpart, fm, t, codex_model=model)
    assert run.view.listing == run.real
    assert ("### How to use skills" in run.real) == how_to
    assert any(f"{window:,}-token window" in w for w in run.view.warnings)


def test_codex_budget_ignores_model_context_window(
    counterpart: Callable[[str], Path], fm: FakeModel, tmp_path: Path
) -> None:
    # model_context_window does not move the skills budget (it stays 2% of 272,000)
    t = roots_tree(tmp_path, 20, seed=3)
    run = _run("codex", counterpart, fm, t, codex_config="model_context_window = 20000\n")
    assert run.view.listing == run.real
    assert any("272,000-token window = 5,440 tokens" in w for w in run.view.warnings)


def test_codex_drops_surrogate_escapes(
    counterpart: Callable[[str], Path], fm: FakeModel, tmp_path: Path
) -> None:
    # a \\u escape of a UTF-16 surrogate (alone, or as a pair, which YAML does not join):
    # Codex drops the file, and the view says why instead of failing on it
    t = budget_tree(tmp_path, ".agents/skills", 2)
    skills = t.repo / ".agents/skills"
    for name, desc in (("sur-pair", "smile \\ud83d\\ude42 end"), ("sur-lone", "lone \\ud83d end")):
        (skills / name).mkdir()
        (skills / name / "SKILL.md").write_text(
            f'---\nname: {name}\ndescription: "{desc}"\n---\nB.\n'
        )
    run = _run("codex", counterpart, fm, t)
    assert run.view.listing == run.real
    assert "sur-" not in run.real
    assert {d.name for d in run.view.dropped} == {"sur-pair", "sur-lone"}
    assert "UTF-16 surrogate" in run.view.explain("sur-lone")


def test_codex_budget_configured_cap(
    counterpart: Callable[[str], Path], fm: FakeModel, tmp_path: Path
) -> None:
    # [skills] max_context_tokens is capped (50,000 asked, Codex uses at most 10,000)
    t = budget_tree(tmp_path, ".agents/skills", 300)
    for i in range(300):
        md = t.repo / f".agents/skills/bulk-{i:03d}/SKILL.md"
        md.write_text(md.read_text().replace("Skill number", "Long skill " + "lorem " * 80))
    run = _run("codex", counterpart, fm, t, codex_config="[skills]\nmax_context_tokens = 50000\n")
    assert run.view.listing == run.real
    assert any("= 10,000 tokens" in w for w in run.view.warnings)


# --- the skill tool's text ---------------------------------------------------------

INVOKED = {
    "plain-args": ("Say hello to $ARGUMENTS.\n\nSecond paragraph.\n", "world", ""),
    "indexed": ("First $0, then $ARGUMENTS[1], missing $5.\n", 'one "two words"', ""),
    "appended": ("No placeholder here.\n", "extra words", ""),
    "named": ("Deploy $env at $version.\n", "prod 1.2", "arguments: env version\n"),
}


def _invoke_tree(base: Path, root: str) -> Tree:
    t = Tree(base)
    t.home.mkdir(parents=True)
    t.cwd.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(t.repo)], check=True)
    for name, (body, _args, extra) in INVOKED.items():
        folder = t.repo / root / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Invoke {name}.\n{extra}---\n{body}"
        )
        (folder / "scripts").mkdir()
        (folder / "scripts" / "run.sh").write_text("echo run\n")
    return t


def _tool_result(bodies: list[dict[str, Any]]) -> str:
    for body in bodies:
        for message in body.get("messages", []):
            content = message.get("content")
            if message.get("role") == "tool" and isinstance(content, str):
                return content
            if isinstance(content, list) and any(
                isinstance(c, dict) and c.get("type") == "tool_result" for c in content
            ):
                texts = [c["text"] for c in content if c.get("type") == "text"]
                return texts[0] if texts else ""
    raise AssertionError("the agent never returned the tool's result")


@pytest.mark.parametrize("name", sorted(INVOKED))
def test_claude_skill_tool_text(
    counterpart: Callable[[str], Path], fm: FakeModel, tmp_path: Path, name: str
) -> None:
    t = _invoke_tree(tmp_path, ".claude/skills")
    args = INVOKED[name][1]
    fm.tool_call = ("Skill", {"skill": name, "args": args})
    bodies = run_agent("claude", counterpart("claude"), fm, home=t.home, cwd=t.cwd)
    v = view("claude-code", t.cwd, env=_env(t, "claude"))
    assert v.invocation(name, args) == _tool_result(bodies)


@pytest.mark.parametrize("name", ["plain-args", "named"])
def test_opencode_skill_tool_text(
    counterpart: Callable[[str], Path], fm: FakeModel, tmp_path: Path, name: str
) -> None:
    t = _invoke_tree(tmp_path, ".agents/skills")
    fm.tool_call = ("skill", {"name": name})
    bodies = run_agent("opencode", counterpart("opencode"), fm, home=t.home, cwd=t.cwd)
    v = view("opencode", t.cwd, env=_env(t, "opencode"))
    assert v.invocation(name) == _tool_result(bodies)


# --- Claude Code plugins ------------------------------------------------------------


def _plugin(market: Path, name: str, files: dict[str, str]) -> dict[str, str]:
    root = market / name
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": name, "version": "1.0.0", "description": f"{name} plugin"})
    )
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return {"name": name, "source": f"./{name}", "description": f"{name} plugin"}


@pytest.fixture(scope="module")
def plugin_tree(counterpart: Callable[[str], Path], tmp_path_factory: Any) -> Tree:
    t = Tree(tmp_path_factory.mktemp("plugins"))
    t.home.mkdir(parents=True)
    t.cwd.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(t.repo)], check=True)
    market = t.base / "market"
    entries = [
        _plugin(
            market,
            "toolbox",
            {
                "skills/pskill/SKILL.md": "---\nname: pskill\ndescription: Plugin skill.\n---\n"
                "Run ${CLAUDE_PLUGIN_ROOT}/scripts/x.sh with $ARGUMENTS\n",
                "skills/quiet/SKILL.md": "---\ndescription: Hidden.\n"
                "disable-model-invocation: true\n---\nQuiet.\n",
                "skills/nodesc/SKILL.md": "# Plugin heading\n\nBody.\n",
                "commands/pcmd.md": "---\ndescription: Plugin command.\n---\nDo pcmd.\n",
                "commands/sub/deep.md": "Deep command.\n",
                "commands/sub/deep2.md": "---\ndescription: Nested command.\n---\nDeep.\n",
                "scripts/x.sh": "echo x\n",
            },
        ),
        _plugin(market, "offbox", {"skills/off/SKILL.md": "---\ndescription: Off.\n---\nOff.\n"}),
    ]
    (market / ".claude-plugin").mkdir()
    (market / ".claude-plugin" / "marketplace.json").write_text(
        json.dumps({"name": "localmkt", "owner": {"name": "test"}, "plugins": entries})
    )
    skill_dir = t.home / ".claude/skills/pskill"
    skill_dir.mkdir(parents=True)
    (skill_dir / "SKILL.md").write_text("---\ndescription: The user's pskill.\n---\nMine.\n")
    claude = str(counterpart("claude"))
    env = {
        "HOME": str(t.home),
        "PATH": os.environ.get("PATH", ""),
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    for args in (
        ["plugin", "marketplace", "add", str(market)],
        ["plugin", "install", "toolbox@localmkt"],
        ["plugin", "install", "offbox@localmkt"],
        ["plugin", "disable", "offbox@localmkt"],
    ):
        done = subprocess.run(
            [claude, *args], cwd=t.cwd, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stdout + done.stderr
    return t


def test_claude_plugins_listing(
    counterpart: Callable[[str], Path], fm: FakeModel, plugin_tree: Tree
) -> None:
    run = _run("claude", counterpart, fm, plugin_tree)
    real = [line for _f, line in claude_entries(run.real)]
    assert run.view.listing.split("\n") == real
    assert "- toolbox:pcmd: Plugin command." in real and not any("off" in x for x in real)


def test_claude_plugin_skill_tool_text(
    counterpart: Callable[[str], Path], fm: FakeModel, plugin_tree: Tree
) -> None:
    fm.tool_call = ("Skill", {"skill": "toolbox:pskill", "args": "now"})
    t = plugin_tree
    bodies = run_agent("claude", counterpart("claude"), fm, home=t.home, cwd=t.cwd)
    v = view("claude-code", t.cwd, env=_env(t, "claude"))
    assert v.invocation("toolbox:pskill", "now") == _tool_result(bodies)
