"""Conditional skills: pattern rules, path rules and session activation semantics."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from skillpath import PluginHost, Skill, SkillSource, load_skills, skill_from_text
from skillpath.activation import PathActivator, normalize_patterns, relative_to_cwd
from skillpath.session import SkillSession

from ..conftest import Env


def mk(name: str, paths: str) -> Skill:
    skill, diags = skill_from_text(
        f"---\ndescription: {name}\npaths: {paths}\n---\nbody\n",
        name=name,
        source=SkillSource("test", "project"),
    )
    assert skill is not None, diags
    return skill


@pytest.mark.parametrize(
    ("patterns", "expected"),
    [
        (["src/**"], ("src",)),
        (["**"], None),
        (["**", "/**"], None),
        (["/**"], None),
        (["", "  "], None),
        (["**", "docs/*.md"], ("**", "docs/*.md")),
        ([" *.py ", "tests/**"], ("*.py", "tests")),
        (["a/**/b"], ("a/**/b",)),
    ],
)
def test_normalize_patterns(patterns: list[str], expected: tuple[str, ...] | None) -> None:
    assert normalize_patterns(patterns) == expected


def test_conditional_follows_the_normalisation() -> None:
    assert mk("a", "src/**").conditional
    assert not mk("b", '"**"').conditional
    assert not mk("c", '["**", "/**"]').conditional
    assert mk("d", '["**", "x"]').conditional
    assert mk("e", '"*.py, *.pyi"').frontmatter.paths == ("*.py", "*.pyi")


def test_relative_to_cwd(tmp_path: Path) -> None:
    cwd = tmp_path / "proj"
    (cwd / "src").mkdir(parents=True)
    assert relative_to_cwd("src/a.py", cwd) == "src/a.py"
    assert relative_to_cwd("./src//a.py", cwd) == "src/a.py"
    assert relative_to_cwd(cwd / "src" / "a.py", cwd) == "src/a.py"
    assert relative_to_cwd("src/", cwd) == "src/"
    assert relative_to_cwd("../other/a.py", cwd) is None
    assert relative_to_cwd("src/../../x.py", cwd) is None
    assert relative_to_cwd(tmp_path / "other" / "a.py", cwd) is None
    assert relative_to_cwd(cwd, cwd) is None
    assert relative_to_cwd("", cwd) is None
    link = tmp_path / "link"
    link.symlink_to(cwd, target_is_directory=True)
    assert relative_to_cwd(link / "src" / "a.py", cwd) == "src/a.py"


def test_matching_semantics(tmp_path: Path) -> None:
    cwd = tmp_path
    act = PathActivator.of(
        [
            mk("py", '"*.py"'),
            mk("src", "src/**"),
            mk("top", "/Makefile"),
            mk("docs", '["docs/", "!docs/internal/"]'),
            mk("any", '["**", "never-used"]'),
            mk("always", '"**"'),  # unconditional: not taken
        ]
    )
    assert [s.name for s in act.pending] == ["any", "docs", "py", "src", "top"]
    assert act.match([], cwd) == []
    assert [s.name for s in act.match(["/elsewhere/src/a.py", "../x.py"], cwd)] == []
    assert [s.name for s in act.match(["docs/internal/x.md"], cwd)] == ["any"]
    assert [s.name for s in act.match(["lib/Makefile"], cwd)] == []
    assert [s.name for s in act.match([cwd / "deep" / "m.py", "src"], cwd)] == ["py", "src"]
    assert act.match(["again.py"], cwd) == []  # once active, never returned again
    assert [s.name for s in act.match(["Makefile", "docs/guide/a.md"], cwd)] == ["docs", "top"]
    assert len(act) == 0


def test_many_skills_and_paths(tmp_path: Path) -> None:
    """Many patterns against many paths (speed is measured by benchmarks/bench.py)."""
    skills = [mk(f"s{i}", f'["pkg{i}/**", "*.ext{i}", "common/{i}/*.md"]') for i in range(500)]
    skills += [mk(f"shared{i}", '"*.shared"') for i in range(500)]
    act = PathActivator.of(skills)
    paths = [f"unrelated/dir{i}/file{i}.txt" for i in range(4000)]
    assert act.match(paths, tmp_path) == []
    hit = act.match(["pkg7/a.py", "x.shared", "common/3/readme.md"], tmp_path)
    assert {s.name for s in hit} == {"s7", "s3"} | {f"shared{i}" for i in range(500)}


# -- through the session ------------------------------------------------------


def session(env: Env) -> SkillSession:
    from skillpath import Discovery, SkillContext, hookimpl

    class Native:
        @hookimpl
        def discover_skills(self, ctx: SkillContext):  # type: ignore[no-untyped-def]
            d = Discovery("native", 100)
            d.scan(env.project / ".skillpath" / "skills", "project")
            return d.result()

    host = PluginHost.create(autoload=False, env={})
    host.add(Native(), "native")
    return SkillSession.open(env.project, home=env.home, env=env.env, host=host)


def test_session_activation(isolated_env: Env) -> None:
    root = ".skillpath/skills"
    isolated_env.skill(root, "plain", "Always here.")
    isolated_env.skill(root, "python", "Python help.", paths='"*.py"')
    isolated_env.skill(root, "web", "Web help.", paths='"web/**"')
    isolated_env.skill(root, "star", "Star.", paths='"**"')
    res = load_skills(
        isolated_env.project,
        home=isolated_env.home,
        env=isolated_env.env,
        host=session(isolated_env).host,
    )
    assert res.names == ["plain", "star"]
    assert [s.name for s in res.conditional] == ["python", "web"]

    s = session(isolated_env)
    assert [x.name for x in s.skills()] == ["plain", "star"]
    assert [x.name for x in s.pending()] == ["python", "web"]
    assert s.get("python") is None
    assert "python" not in s.listing().text
    with pytest.raises(Exception, match=r"'python' is conditional \(paths: .*\) and not active"):
        s.resolve("skill://python")

    outside = isolated_env.project.parent / "elsewhere" / "x.py"
    assert s.activate_for_paths([outside, "../x.py", "README.md"]) == []

    got = s.activate_for_paths([isolated_env.project / "src" / "main.py"])
    assert [x.name for x in got] == ["python"]
    assert s.activate_for_paths(["other.py"]) == []  # already active
    got = s.activate_for_paths(["web/index.html", "lib/util.py"])
    assert [x.name for x in got] == ["web"]
    assert s.pending() == ()

    assert [x.name for x in s.skills()] == ["plain", "python", "star", "web"]
    assert "python" in s.listing().text and "web" in s.listing().text
    assert s.resolve("skill://python").content.endswith("Body.\n")
    tool = repr(s.skill_tool())
    assert "'python'" in tool and "'web'" in tool
    assert s.ctx.skills["web"].description == "Web help."


def test_activation_is_thread_safe(isolated_env: Env) -> None:
    import threading

    for i in range(40):
        isolated_env.skill(".skillpath/skills", f"c{i}", "C.", paths=f'"dir{i % 4}/**"')
    s = session(isolated_env)
    results: list[list[str]] = []
    lock = threading.Lock()
    barrier = threading.Barrier(8)

    def worker(i: int) -> None:
        barrier.wait()
        got = s.activate_for_paths([f"dir{i % 4}/file.txt"])
        with lock:
            results.append([x.name for x in got])

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    flat = [n for r in results for n in r]
    assert sorted(flat) == sorted(f"c{i}" for i in range(40))  # each exactly once
    assert len(s.skills()) == 40
    assert os.fspath(isolated_env.project)  # keep the fixture alive


_SEGMENTS = ["a", "b", "src", "x.py", "*.py", "*", "**", "?", "[ab]", "docs", "*.gz", "c.tar.gz"]
_COMPONENTS = ["a", "b", "src", "x.py", "y.md", "docs", "c.tar.gz", "ab"]


def test_the_index_never_loses_a_match() -> None:
    """The indexed matcher agrees with a plain per-skill GitIgnoreSpec."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from pathspec import GitIgnoreSpec

    pattern = st.builds(
        lambda lead, segs, trail: ("/" if lead else "") + "/".join(segs) + ("/" if trail else ""),
        st.booleans(),
        st.lists(st.sampled_from(_SEGMENTS), min_size=1, max_size=3),
        st.booleans(),
    )
    path = st.builds(
        lambda comps, trail: "/".join(comps) + ("/" if trail else ""),
        st.lists(st.sampled_from(_COMPONENTS), min_size=1, max_size=4),
        st.booleans(),
    )

    @settings(max_examples=150, deadline=None)
    @given(st.lists(pattern, min_size=1, max_size=3), st.lists(path, min_size=1, max_size=3))
    def check(patterns: list[str], paths: list[str]) -> None:
        quoted = "[" + ", ".join(f"'{p}'" for p in patterns) + "]"
        skill = mk("s", quoted)
        norm = normalize_patterns(skill.frontmatter.paths)
        act = PathActivator.of([skill])
        got = [s.name for s in act.match(paths, "/cwd")]
        if norm is None:
            assert got == []  # unconditional skills are never pending
            return
        spec = GitIgnoreSpec.from_lines(norm)
        expected = ["s"] if any(spec.match_file(p) for p in paths) else []
        assert got == expected, (norm, paths)

    check()
