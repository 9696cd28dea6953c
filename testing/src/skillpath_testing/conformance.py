"""The provider conformance suite: one base class a provider's tests subclass.

Usage (in the provider's ``tests/test_conformance.py``)::

    from pathlib import Path

    from skillpath_testing import ProviderConformance, Root


    class TestMyProviderConformance(ProviderConformance):
        provider_id = "my-provider"
        priority = 40
        distribution = "skillpath-my-provider"

        def skill_roots(self, home: Path, project: Path) -> list[Root]:
            return [
                Root(project / ".my" / "skills", "project"),
                Root(home / ".my" / "skills", "user"),
            ]

Every test runs against real files in a private temp world (:class:`Layout`):
a fake home, a project that is a git repository root (the working
directory), and an environment built from scratch (``HOME``, the XDG dirs and
whatever :meth:`ProviderConformance.environment` adds). The provider is loaded
through its real, installed entry point in the ``skillpath`` group.
"""

from __future__ import annotations

import importlib.metadata
import os
import stat
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import attrs
import pytest
from skillpath import (
    Diagnostic,
    DiscoveryResult,
    LoadResult,
    PluginHost,
    Skill,
    load_skills,
    make_context,
    reset_plugin_host,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "Layout",
    "ProviderConformance",
    "Root",
    "discover",
    "load",
    "make_layout",
    "plugin_host",
    "write_skill",
]

ENTRY_POINT_GROUP = "skillpath"
LEVELS = ("managed", "user", "project")
#: Variables removed from the process environment while a conformance test runs.
ISOLATED_VARS = (
    "SKILLPATH",
    "SKILLPATH_HOME",
    "SKILLPATH_DISABLE_PLUGINS",
    "SKILLPATH_PLUGINS",
    "SKILLPATH_NO_AUTOLOAD",
    "SKILLPATH_STRICT",
    "SKILLPATH_CLAUDE_POLICY_DIR",
    "SKILLPATH_CLAUDE_MANAGED_DIR",
    "SKILLPATH_CODEX_ADMIN_DIR",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
)


#: Every variable that can point skillpath (or an agent it reads) at real user files
#: or change which plugins load; :func:`isolate_environment` clears them all.
ENVIRONMENT_VARS = (
    *ISOLATED_VARS,
    "SKILLPATH_NO_INDEX",
    "SKILLPATH_CACHE_DIR",
    "SKILLPATH_PACKS",
    "SKILLPATH_DISABLE_PACKS",
)


def isolate_environment(
    monkeypatch: pytest.MonkeyPatch, tmp: Path, *, cache_dir: Path | None = None
) -> tuple[Path, Path]:
    """Point the process environment into ``tmp`` for one test; return ``(home, project)``.

    Creates ``tmp/home`` and ``tmp/project`` (a git repository root outside
    home), clears :data:`ENVIRONMENT_VARS`, sets ``HOME`` and the XDG dirs under
    home, moves Claude Code's and Codex's system skills dirs into ``tmp``, sets
    ``SKILLPATH_LIBRARIES`` to nothing (the installed libraries' skills stay out),
    ``SKILLPATH_CACHE_DIR`` when ``cache_dir`` is given, and forgets the cached
    plugin host. monkeypatch undoes the variables after the test.
    """
    home = tmp / "home"
    project = tmp / "project"
    home.mkdir(parents=True, exist_ok=True)
    (project / ".git").mkdir(parents=True, exist_ok=True)
    for var in ENVIRONMENT_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("SKILLPATH_CLAUDE_POLICY_DIR", str(tmp / "etc-claude-skills"))
    monkeypatch.setenv("SKILLPATH_CLAUDE_MANAGED_DIR", str(tmp / "etc-claude-code"))
    monkeypatch.setenv("SKILLPATH_CODEX_ADMIN_DIR", str(tmp / "etc-codex-skills"))
    # the libraries installed in the test environment (and their skills) stay out
    monkeypatch.setenv("SKILLPATH_LIBRARIES", "")
    if cache_dir is not None:
        monkeypatch.setenv("SKILLPATH_CACHE_DIR", str(cache_dir))
    reset_plugin_host()
    return home, project


@attrs.frozen
class Root:
    """A skills root the provider must scan (``<path>/<name>/SKILL.md``) and its level."""

    path: Path
    level: str


@attrs.frozen
class Layout:
    """The private world one conformance test runs in.

    ``tmp`` is the test's (resolved) temp dir, ``home`` the fake home,
    ``project`` a git repository root outside home that is also ``cwd``, and
    ``env`` the complete environment handed to skillpath.
    """

    tmp: Path
    home: Path
    project: Path
    cwd: Path
    env: Mapping[str, str]


def write_skill(
    root: Path,
    name: str,
    /,
    description: str | None = "A conformance test skill.",
    body: str = "Body of the skill.\n",
    **fields: str,
) -> Path:
    """Write ``<root>/<name>/SKILL.md`` (parents created) and return its path.

    ``name`` is the folder name. ``description=None`` writes no description;
    ``fields`` become extra frontmatter lines (``key: value``, underscores
    turned into dashes), so ``name="other"`` sets the frontmatter name.
    """
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["---"]
    if description is not None:
        lines.append(f"description: {description}")
    lines.extend(f"{key.replace('_', '-')}: {value}" for key, value in fields.items())
    lines.append("---")
    path = folder / "SKILL.md"
    path.write_text("\n".join(lines) + "\n" + body, encoding="utf-8")
    return path


def make_layout(tmp: Path, env: Mapping[str, str] | None = None) -> Layout:
    """Create a fake home and a project (a git repository root) under ``tmp``.

    The environment is built from scratch: ``HOME``, ``PATH``, the XDG dirs
    under home, then ``env`` on top. Nothing is read from or written to the
    real home.
    """
    tmp = tmp.resolve()
    home = tmp / "home"
    project = tmp / "work" / "project"
    home.mkdir(parents=True, exist_ok=True)
    (project / ".git").mkdir(parents=True, exist_ok=True)
    full = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", os.defpath),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "SKILLPATH_LIBRARIES": "",
        # Claude Code's managed settings (enabledPlugins) stay out
        "SKILLPATH_CLAUDE_MANAGED_DIR": str(tmp / "etc-claude-code"),
    }
    full.update(env or {})
    return Layout(tmp=tmp, home=home, project=project, cwd=project, env=full)


def plugin_host(layout: Layout, plugins: Sequence[str] | None = None) -> PluginHost:
    """A fresh plugin host for ``layout``; ``plugins`` allow-lists entry points by name."""
    env = dict(layout.env)
    if plugins is not None:
        env["SKILLPATH_PLUGINS"] = ",".join(plugins)
    return PluginHost.create(env=env)


def discover(provider_id: str, layout: Layout, *, cwd: Path | None = None) -> DiscoveryResult:
    """Call one provider's ``discover_skills`` through a real plugin host.

    Only the entry point named ``provider_id`` is loaded; a failure to load it
    or a raising hook fails the calling test.
    """
    host = plugin_host(layout, [provider_id])
    assert not host.diagnostics, [d.message for d in host.diagnostics]
    ctx, _ = make_context(cwd or layout.cwd, home=layout.home, env=layout.env)
    results, diags = host.discover(ctx)
    assert not diags, [d.message for d in diags]
    mine = [r for r in results if r.provider == provider_id]
    assert len(mine) == 1, (
        f"expected one DiscoveryResult for provider {provider_id!r}, got "
        f"{[r.provider for r in results]}"
    )
    return mine[0]


def load(
    layout: Layout,
    *,
    cwd: Path | None = None,
    plugins: Sequence[str] | None = None,
    settings: Mapping[str, Any] | None = None,
) -> LoadResult:
    """Run the whole pipeline (``skillpath.load_skills``) in ``layout``.

    ``plugins`` allow-lists entry points (default: every installed one);
    ``settings`` are overrides such as ``{"skills.enable_claude_user": False}``.
    Every source is approved (``[trust] approve = ["*"]``): the kit checks what a
    provider discovers, not the quarantine of third-party skills
    (:mod:`skillpath.trust`); pass ``{"trust.approve": []}`` to see the defaults'
    quarantine instead.
    """
    return load_skills(
        cwd or layout.cwd,
        home=layout.home,
        env=layout.env,
        settings={"trust.approve": ["*"], **(settings or {})},
        host=plugin_host(layout, plugins),
    )


def _mine(diags: Sequence[Diagnostic], path: Path) -> list[Diagnostic]:
    return [d for d in diags if d.path is not None and Path(d.path) == path]


class ProviderConformance:
    """Base class of a provider's conformance tests (langchain standard-tests style).

    Subclass it in a class whose name starts with ``Test``, set the class
    attributes and implement :meth:`skill_roots`. Override
    :meth:`environment` when the provider reads environment variables that
    must point into the temp world.
    """

    #: The provider id: also the entry-point name in the ``skillpath`` group.
    provider_id: ClassVar[str] = ""
    #: The priority every skill of the provider must carry.
    priority: ClassVar[int] = 0
    #: The distribution that must own the entry point (``None``: not checked).
    distribution: ClassVar[str | None] = None
    #: Whether a skill without a description is skipped (with a diagnostic).
    requires_description: ClassVar[bool] = False
    #: Whether the provider's result merges in pass 3 (after custom directories).
    late: ClassVar[bool] = False
    #: How many folders deep below a root skills are found (1: ``<root>/<name>``).
    nested_depth: ClassVar[int] = 1

    # -- what a subclass declares ----------------------------------------
    def skill_roots(self, home: Path, project: Path) -> Sequence[Root]:
        """The roots the provider must scan in this world, in the provider's order.

        ``project`` is the working directory and a git repository root; ``home``
        is the fake home. The method may create whatever the provider needs in
        order to look at these roots (a registry file, a plugin folder) but must
        not create the roots themselves: the tests decide whether they exist.
        """
        raise NotImplementedError("subclasses list the roots the provider scans")

    def environment(self, home: Path, project: Path) -> Mapping[str, str]:
        """Extra environment variables for the provider (default: none)."""
        return {}

    # -- fixtures ----------------------------------------------------------
    @pytest.fixture
    def layout(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Layout]:
        """A fake home and project, and the environment pointing at them."""
        base = make_layout(tmp_path)
        layout = make_layout(tmp_path, self.environment(base.home, base.project))
        for var in ISOLATED_VARS:
            monkeypatch.delenv(var, raising=False)
        for key, value in layout.env.items():
            monkeypatch.setenv(key, value)
        reset_plugin_host()
        yield layout
        reset_plugin_host()

    @pytest.fixture
    def roots(self, layout: Layout) -> list[Root]:
        """The declared roots for this layout (checked for sanity)."""
        roots = list(self.skill_roots(layout.home, layout.project))
        assert roots, "skill_roots() must return at least one root"
        for root in roots:
            assert isinstance(root, Root), f"skill_roots() must return Root objects: {root!r}"
            assert root.level in LEVELS, f"unknown level {root.level!r} for {root.path}"
            assert root.path.is_absolute(), f"root {root.path} is not absolute"
        assert len({r.path for r in roots}) == len(roots), "a root is listed twice"
        return roots

    # -- helpers -----------------------------------------------------------
    def entry_point(self) -> importlib.metadata.EntryPoint:
        """The provider's installed entry point (the test fails when there is none)."""
        assert self.provider_id, "set provider_id on the conformance class"
        found = [
            ep
            for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
            if ep.name == self.provider_id
        ]
        assert found, (
            f"no entry point {self.provider_id!r} in group {ENTRY_POINT_GROUP!r}: "
            "is the distribution installed?"
        )
        assert len({ep.value for ep in found}) == 1, f"conflicting entry points: {found}"
        return found[0]

    def host(self, layout: Layout, *, only: bool = True) -> PluginHost:
        """A fresh plugin host; with ``only`` just this provider's entry point loads."""
        return plugin_host(layout, [self.provider_id] if only else None)

    def discover(self, layout: Layout) -> DiscoveryResult:
        """Call the provider's ``discover_skills`` through a real plugin host."""
        return discover(self.provider_id, layout)

    def load(self, layout: Layout, *, only: bool = True) -> LoadResult:
        """Run the whole pipeline (``skillpath.load_skills``) in the layout."""
        return load(layout, plugins=[self.provider_id] if only else None)

    def _skill(self, result: DiscoveryResult, name: str) -> Skill | None:
        for skill in result.skills:
            if skill.name == name:
                return skill
        return None

    # -- the replay of an unchanged ``skillpath list`` ------------------------
    def test_hooks_declare_what_they_depend_on(self, layout: Layout) -> None:
        """Every ``discover_skills``/``filter_skill``/``transform_prompt`` of the provider
        declares what its output depends on (``skillpath.depends_on`` or ``DEPENDS_ON``):
        without it, ``skillpath list`` is never replayed while the provider is installed."""
        host = self.host(layout)
        undeclared = [
            b.message()
            for b in host.replay_blockers()
            if b.plugin == self.provider_id and not b.depends
        ]
        assert not undeclared, undeclared

    def test_a_replayed_list_is_never_stale(self, layout: Layout, roots: list[Root]) -> None:
        """``skillpath list --json`` run again on an unchanged tree, in new processes, with
        the replay on: when the provider's output changes while no file does (it reads the
        clock, a service, a counter), no run may be recorded or replayed; otherwise every
        run prints what a run with the replay off prints."""
        for i, root in enumerate(roots):
            write_skill(root.path, f"replay-{i}")
        log = layout.tmp / "snapshot.log"
        env = {
            **layout.env,
            "SKILLPATH_PLUGINS": self.provider_id,
            "SKILLPATH_SNAPSHOT_LOG": str(log),
            "SKILLPATH_INDEX_RACY_MS": "0",
        }
        if "PYTHONPATH" in os.environ and "PYTHONPATH" not in env:
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        script = Path(sys.executable).with_name("skillpath")
        assert script.exists(), f"no skillpath console script next to {sys.executable}"

        def run(**extra: str) -> bytes:
            out = subprocess.run(
                [str(script), "list", "--json"],
                cwd=layout.cwd,
                env={**env, **extra},
                capture_output=True,
                timeout=120,
                check=False,
            )
            assert out.returncode == 0, out.stderr.decode(errors="replace")
            return out.stdout

        fresh = [run(SKILLPATH_NO_SNAPSHOT="1") for _ in range(2)]
        log.unlink(missing_ok=True)
        served = [run() for _ in range(3)]
        decisions = log.read_text().splitlines() if log.exists() else []
        fresh.append(run(SKILLPATH_NO_SNAPSHOT="1"))
        if len(set(fresh)) > 1:
            kept = [d for d in decisions if d.startswith(("recorded ", "replayed "))]
            assert not kept, (
                "the provider's output changes while no file does, yet a run was kept for "
                f"replay (declare what it depends on with skillpath.depends_on): {kept}"
            )
        else:
            assert set(served) == {fresh[0]}, f"a replayed run differs: {decisions}"

    # -- registration --------------------------------------------------------
    def test_entry_point_is_installed(self) -> None:
        """The provider is a real installed entry point whose module declares id and priority."""
        ep = self.entry_point()
        plugin: Any = ep.load()
        assert getattr(plugin, "PROVIDER_ID", None) == self.provider_id
        assert getattr(plugin, "PRIORITY", None) == self.priority
        hook = getattr(plugin, "discover_skills", None)
        assert hook is not None and hasattr(hook, "skillpath_impl"), (
            "the plugin has no @hookimpl discover_skills"
        )
        if self.distribution is not None:
            assert ep.dist is not None, "the entry point has no distribution"
            assert ep.dist.metadata["Name"] == self.distribution

    def test_loads_through_load_skills(self, layout: Layout, roots: list[Root]) -> None:
        """With every installed plugin loaded, the provider's skills come out of load_skills."""
        for i, root in enumerate(roots):
            write_skill(root.path, f"loaded-{i}", f"skill in root {i}")
        host = self.host(layout, only=False)
        records = [r for r in host.records if r.name == self.provider_id]
        assert [r.status for r in records] == ["loaded"], records
        assert records[0].provider == self.provider_id
        assert records[0].priority == self.priority
        if self.distribution is not None:
            assert records[0].distribution == self.distribution
        result = load_skills(
            layout.cwd,
            home=layout.home,
            env=layout.env,
            host=host,
            settings={"trust.approve": ["*"]},  # discovery, not the quarantine (see load)
        )
        for i, root in enumerate(roots):
            skill = result.get(f"loaded-{i}")
            assert skill is not None, f"skill in {root.path} not loaded: {result.diagnostics}"
            assert skill.source.provider == self.provider_id
            assert skill.priority == self.priority
            assert skill.path == root.path / f"loaded-{i}" / "SKILL.md"

    # -- order, levels, priority -------------------------------------------
    def test_roots_levels_order_and_priority(self, layout: Layout, roots: list[Root]) -> None:
        """Each root is scanned at its level, in declared order, with the provider's priority."""
        for i, root in enumerate(roots):
            write_skill(root.path, f"ordered-{i}", f"skill in root {i}")
        result = self.discover(layout)
        assert result.priority == self.priority
        assert result.late is self.late
        assert not result.diagnostics, [d.message for d in result.diagnostics]
        names = [s.name for s in result.skills if s.name.startswith("ordered-")]
        assert names == [f"ordered-{i}" for i in range(len(roots))]
        for i, root in enumerate(roots):
            skill = self._skill(result, f"ordered-{i}")
            assert skill is not None
            assert skill.source.provider == self.provider_id
            assert skill.source.level == root.level
            assert skill.source.root == root.path
            assert skill.priority == self.priority
            assert skill.base_dir == root.path / f"ordered-{i}"
        for skill in result.skills:
            assert skill.priority == self.priority
        scanned = [r.path for r in result.roots]
        positions = []
        for root in roots:
            assert root.path in scanned, f"{root.path} is not among the roots looked at"
            scan = result.roots[scanned.index(root.path)]
            assert scan.level == root.level and scan.exists and scan.count == 1
            positions.append(scanned.index(root.path))
        assert positions == sorted(positions), "roots looked at in another order"

    def test_first_root_wins_a_name(self, layout: Layout, roots: list[Root]) -> None:
        """The same name in every root: the first declared root wins, the rest are shadowed."""
        for i, root in enumerate(roots):
            write_skill(root.path, "shared-name", f"copy {i}")
        result = self.load(layout)
        winner = result.get("shared-name")
        assert winner is not None
        assert winner.source.root == roots[0].path
        losers = [s for s in result.shadowed if s.skill.name == "shared-name"]
        assert [s.skill.source.root for s in losers] == [r.path for r in roots[1:]]
        assert all(s.reason == "name" and s.by == winner for s in losers)
        conflicts = [d for d in result.diagnostics if d.code == "name-conflict"]
        assert len(conflicts) == len(roots) - 1

    # -- layout rules -------------------------------------------------------
    def test_one_level_only(self, layout: Layout, roots: list[Root]) -> None:
        """``<root>/group/<name>/SKILL.md`` is not a skill (unless the provider declares
        ``nested_depth`` > 1, as ``codex`` does: then it is, and nothing is noted as
        not loaded); ``<root>/<name>/SKILL.md`` is; ``group`` itself never is."""
        for i, root in enumerate(roots):
            write_skill(root.path / f"group-{i}", f"nested-{i}")
            write_skill(root.path, f"flat-{i}")
        result = self.discover(layout)
        names = {s.name for s in result.skills}
        for i in range(len(roots)):
            assert f"flat-{i}" in names
            assert (f"nested-{i}" in names) == (self.nested_depth > 1)
            assert f"group-{i}" not in names
        if self.nested_depth > 1:
            assert not [d for d in result.diagnostics if d.code.startswith("nested-skills-")]

    def test_dot_entries_skipped(self, layout: Layout, roots: list[Root]) -> None:
        """Entries whose name starts with a dot are never skills; a SKILL.md in one is
        only noted (info ``nested-skills-*``: nothing is lost silently)."""
        for i, root in enumerate(roots):
            write_skill(root.path, f".hidden-{i}")
            write_skill(root.path, f"visible-{i}")
        result = self.discover(layout)
        names = {s.name for s in result.skills}
        assert names >= {f"visible-{i}" for i in range(len(roots))}
        assert not any(n.startswith(".hidden") for n in names)
        noted = [d for d in result.diagnostics if d.code.startswith("nested-skills-")]
        assert all(d.level == "info" for d in noted)
        others = [d for d in result.diagnostics if d not in noted]
        assert not others, [d.message for d in others]

    def test_symlinked_skill_dirs_followed(self, layout: Layout, roots: list[Root]) -> None:
        """A symlink to a skill folder is a skill, named after the link (a project
        root's link stays inside the project: see the next test)."""
        for i, root in enumerate(roots):
            base = layout.project if root.level == "project" else layout.tmp
            target = write_skill(base / "elsewhere" / str(i), "real", f"linked {i}").parent
            root.path.mkdir(parents=True, exist_ok=True)
            (root.path / f"linked-{i}").symlink_to(target, target_is_directory=True)
        result = self.discover(layout)
        for i, root in enumerate(roots):
            skill = self._skill(result, f"linked-{i}")
            assert skill is not None, f"symlinked skill dir in {root.path} not followed"
            assert skill.description == f"linked {i}"
            assert skill.path == root.path / f"linked-{i}" / "SKILL.md"
            assert skill.source.level == root.level

    def test_project_links_out_of_the_project_are_refused(
        self, layout: Layout, roots: list[Root]
    ) -> None:
        """A project root's symlinked skill folder that resolves outside the project
        (the repository) is refused unread, with a ``file-outside-project`` error."""
        project_roots = [r for r in roots if r.level == "project"]
        if not project_roots:
            pytest.skip("the provider has no project-level roots")
        for i, root in enumerate(project_roots):
            target = write_skill(layout.tmp / "outside" / str(i), "real", f"OUTSIDE {i}").parent
            root.path.mkdir(parents=True, exist_ok=True)
            (root.path / f"escaped-{i}").symlink_to(target, target_is_directory=True)
        result = self.discover(layout)
        for i, root in enumerate(project_roots):
            link = root.path / f"escaped-{i}"
            assert self._skill(result, f"escaped-{i}") is None, f"{link} was loaded"
            codes = {d.code for d in _mine(result.diagnostics, link)}
            assert "file-outside-project" in codes, f"no file-outside-project for {link}"
        assert not any("OUTSIDE" in s.description for s in result.skills)

    def test_dangling_symlink_is_a_diagnostic(self, layout: Layout, roots: list[Root]) -> None:
        """A dangling symlink is reported with its path; the skills next to it still load."""
        for i, root in enumerate(roots):
            write_skill(root.path, f"beside-{i}")
            (root.path / f"dangling-{i}").symlink_to(layout.tmp / f"nowhere-{i}")
        result = self.discover(layout)
        names = {s.name for s in result.skills}
        for i, root in enumerate(roots):
            assert f"beside-{i}" in names
            link = root.path / f"dangling-{i}"
            found = _mine(result.diagnostics, link)
            assert found, f"no diagnostic for dangling symlink {link}"
            assert all(d.level in ("warning", "error") for d in found)
            assert all(d.provider == self.provider_id for d in found)

    def test_missing_roots_are_silent(self, layout: Layout, roots: list[Root]) -> None:
        """No root exists: no skills and not a single diagnostic."""
        result = self.discover(layout)
        assert result.skills == ()
        assert result.diagnostics == (), [d.message for d in result.diagnostics]
        loaded = self.load(layout)
        assert [d for d in loaded.diagnostics if d.provider == self.provider_id] == []

    def test_root_that_is_a_file_is_a_diagnostic(self, layout: Layout, roots: list[Root]) -> None:
        """A root that is a regular file is reported with its path, and nothing crashes."""
        for root in roots:
            root.path.parent.mkdir(parents=True, exist_ok=True)
            root.path.write_text("not a directory\n", encoding="utf-8")
        result = self.discover(layout)
        assert result.skills == ()
        for root in roots:
            found = _mine(result.diagnostics, root.path)
            assert found, f"no diagnostic for root {root.path} that is a file"
            assert all(d.level == "error" for d in found)

    def test_unreadable_root_is_a_diagnostic(self, layout: Layout, roots: list[Root]) -> None:
        """A root without read permission (``chmod 000``) is reported with its path."""
        root = roots[0]
        write_skill(root.path, "locked-away")
        root.path.chmod(0)
        try:
            if os.access(root.path, os.R_OK):
                pytest.skip("this user can read a chmod 000 directory (running as root?)")
            result = self.discover(layout)
            assert self._skill(result, "locked-away") is None
            found = _mine(result.diagnostics, root.path)
            assert found, f"no diagnostic for unreadable root {root.path}"
            assert all(d.level == "error" for d in found)
        finally:
            root.path.chmod(stat.S_IRWXU)

    def test_a_broken_root_does_not_stop_the_others(
        self, layout: Layout, roots: list[Root]
    ) -> None:
        """First root is a file, a ``SKILL.md`` is a directory: both reported, the rest loads."""
        first = roots[0].path
        first.parent.mkdir(parents=True, exist_ok=True)
        first.write_text("not a directory\n", encoding="utf-8")
        for i, root in enumerate(roots[1:], start=1):
            write_skill(root.path, f"fine-{i}")
            (root.path / f"odd-{i}" / "SKILL.md").mkdir(parents=True)
        result = self.discover(layout)
        assert _mine(result.diagnostics, first)
        names = {s.name for s in result.skills}
        for i, root in enumerate(roots[1:], start=1):
            assert f"fine-{i}" in names
            assert f"odd-{i}" not in names
            assert _mine(result.diagnostics, root.path / f"odd-{i}" / "SKILL.md")

    def test_description_requirement(self, layout: Layout, roots: list[Root]) -> None:
        """Without a description a skill is skipped with a diagnostic, or uses its body."""
        for i, root in enumerate(roots):
            write_skill(root.path, f"undescribed-{i}", None, "# Title\n\nFirst paragraph here.\n")
        result = self.discover(layout)
        for i, root in enumerate(roots):
            path = root.path / f"undescribed-{i}" / "SKILL.md"
            skill = self._skill(result, f"undescribed-{i}")
            if self.requires_description:
                assert skill is None, f"{path} loaded without the required description"
                found = _mine(result.diagnostics, path)
                assert [d.code for d in found] == ["missing-description"]
            else:
                assert skill is not None, f"{path} skipped: {result.diagnostics}"
                assert skill.description == "First paragraph here."

    def test_output_is_deterministic(self, layout: Layout, roots: list[Root]) -> None:
        """Two discoveries of the same tree give the same skills and diagnostics, in order."""
        for i, root in enumerate(roots):
            for name in ("zeta", "alpha", "Mid"):
                write_skill(root.path, f"{name}-{i}")
            (root.path / f"dangling-{i}").symlink_to(layout.tmp / "nowhere")

        def snapshot() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
            res = self.discover(layout)
            return (
                [(s.name, str(s.path)) for s in res.skills],
                [(d.code, str(d.path)) for d in res.diagnostics],
            )

        first = snapshot()
        assert first == snapshot()
        for i in range(len(roots)):
            names = [n for n, _ in first[0] if n.endswith(f"-{i}")]
            assert names == sorted(names), "entries of a root are not visited in sorted order"
