"""The cross-process entry-point cache follows installs, upgrades and removals."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

PROBE = textwrap.dedent(
    """
    import json, sys
    from skillpath.cache.entrypoints import entry_points
    eps = entry_points(sys.argv[1])
    loaded = {}
    for ep in eps:
        if ep.name.startswith("probe"):
            loaded[ep.name] = repr(ep.load())
    print(json.dumps({
        "eps": [[e.name, e.value, e.dist.name if e.dist else None,
                 e.dist.version if e.dist else None] for e in eps],
        "loaded": loaded,
        "importlib_metadata": "importlib_metadata" in sys.modules,
    }))
    """
)


def install(site: Path, dist: str, version: str, eps: dict[str, str], group: str) -> Path:
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n\n")
    lines = [f"[{group}]"] + [f"{k} = {v}" for k, v in eps.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return info


def probe(tmp_path: Path, site: Path, group: str = "skillpath.test") -> dict[str, Any]:
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "SKILLPATH_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": str(site),
    }
    proc = subprocess.run(
        [sys.executable, str(script), group], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def names(result: dict[str, Any]) -> list[list[Any]]:
    return sorted(e for e in result["eps"] if e[0].startswith("probe"))


def test_cached_then_refreshed_on_every_distribution_change(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "probe_mod.py").write_text("THING = 'thing one'\nOTHER = 'thing two'\n")
    info = install(site, "probe-dist", "1.0", {"probe": "probe_mod:THING"}, "skillpath.test")

    first = probe(tmp_path, site)
    assert names(first) == [["probe", "probe_mod:THING", "probe-dist", "1.0"]]
    assert first["importlib_metadata"] is True  # enumerated
    assert first["loaded"] == {"probe": "'thing one'"}
    assert list((tmp_path / "cache" / "index").glob("entry-points-*.bin"))

    second = probe(tmp_path, site)
    assert names(second) == names(first)
    assert second["importlib_metadata"] is False  # served from the cache

    # edited in place (same folder): the entry point now names another object
    (info / "entry_points.txt").write_text("[skillpath.test]\nprobe = probe_mod:OTHER\n")
    third = probe(tmp_path, site)
    assert third["loaded"] == {"probe": "'thing two'"}

    # another distribution installed, then the first one removed
    install(site, "probe-two", "2.0", {"probe2": "probe_mod:THING"}, "skillpath.test")
    assert [e[0] for e in names(probe(tmp_path, site))] == ["probe", "probe2"]
    import shutil

    shutil.rmtree(info)
    assert names(probe(tmp_path, site)) == [["probe2", "probe_mod:THING", "probe-two", "2.0"]]


def test_damaged_cache_is_ignored(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "probe_mod.py").write_text("THING = 1\n")
    install(site, "probe-dist", "1.0", {"probe": "probe_mod:THING"}, "skillpath.test")
    probe(tmp_path, site)
    (cache,) = (tmp_path / "cache" / "index").glob("entry-points-*.bin")
    cache.write_bytes(cache.read_bytes()[:-7])
    again = probe(tmp_path, site)
    assert names(again) == [["probe", "probe_mod:THING", "probe-dist", "1.0"]]
    assert again["importlib_metadata"] is True
    assert probe(tmp_path, site)["importlib_metadata"] is False


def test_real_plugin_group_matches_importlib_metadata() -> None:
    import importlib_metadata
    from skillpath.cache.entrypoints import entry_points

    ours = sorted(
        (e.name, e.value, e.dist.name if e.dist else None) for e in entry_points("skillpath")
    )
    theirs = sorted(
        (e.name, e.value, e.dist.metadata["Name"] if e.dist else None)
        for e in importlib_metadata.entry_points(group="skillpath")
    )
    assert ours == theirs and ours


def test_one_fingerprint_looks_at_sys_path_once_per_block(monkeypatch: Any) -> None:
    from skillpath.cache import entrypoints

    taken: list[tuple[Any, ...]] = []
    real = entrypoints._fingerprint

    def counting() -> tuple[Any, ...]:
        taken.append(real())
        return taken[-1]

    monkeypatch.setattr(entrypoints, "_fingerprint", counting)
    outside = [e.name for e in entrypoints.entry_points("skillpath")]
    entrypoints.entry_points("skillpath.packs")
    assert len(taken) == 2  # no load and no block: each call looks again
    with entrypoints.one_fingerprint():
        inside = [e.name for e in entrypoints.entry_points("skillpath")]
        entrypoints.entry_points("skillpath.packs")
        entrypoints.entry_points("skillpath")
    assert len(taken) == 3 and inside == outside and inside
    with entrypoints.one_fingerprint():  # a new block looks again (an install in between)
        entrypoints.entry_points("skillpath")
    assert len(taken) == 4


def test_a_command_line_list_looks_at_sys_path_once(tmp_path: Path) -> None:
    """The plugin host, the packs provider and the check for missing providers share
    one fingerprint in ``skillpath list``, with the discovery index on or off."""
    script = tmp_path / "count.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys
            from skillpath.cache import entrypoints
            from skillpath.cli._listrun import run_list
            taken = []
            real = entrypoints._fingerprint
            entrypoints._fingerprint = lambda: taken.append(1) or real()
            run_list(False, (), (), False, None, True)
            print(len(taken), file=sys.stderr)
            """
        )
    )
    (tmp_path / "home").mkdir()
    (tmp_path / "proj").mkdir()
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "SKILLPATH_CACHE_DIR": str(tmp_path / "cache"),
    }
    for extra in ({"SKILLPATH_NO_INDEX": "1"}, {}):
        proc = subprocess.run(
            [sys.executable, str(script)],
            env={**env, **extra},
            cwd=tmp_path / "proj",
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["diagnostics"] is not None
        assert proc.stderr.strip().splitlines()[-1] == "1", proc.stderr


def test_a_session_sees_every_distribution_change_between_refreshes(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """A watching session keeps the ``sys.path`` fingerprint between refreshes while no
    event came; an install, an edit in place, a removal and a ``sys.path`` change are
    each seen by the next refresh, which equals a load with every layer off."""
    import shutil

    from skillpath import SkillSession, load_skills
    from skillpath.cache import entrypoints
    from skillpath.cache import notify as _notify

    from tests.conftest import SkillTree

    tree = SkillTree(tmp_path / "tree")
    tree.skill(".claude/skills", "plain")
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    taken: list[int] = []
    real = entrypoints._fingerprint

    def counting() -> tuple[Any, ...]:
        taken.append(1)
        return real()

    monkeypatch.setattr(entrypoints, "_fingerprint", counting)
    off = {"SKILLPATH_NO_INDEX": "1", "SKILLPATH_NO_REUSE": "1", "SKILLPATH_NO_SNAPSHOT": "1"}

    def diags(res: Any) -> list[Any]:
        return sorted(d.to_json()["message"] for d in res.diagnostics if "probe" in d.message)

    s = SkillSession.open(tree.project, home=tree.home, env=tree.env)

    def same_as_fresh() -> list[Any]:
        fresh = load_skills(tree.project, home=tree.home, env={**tree.env, **off})
        assert diags(s.result) == diags(fresh)
        assert [x.to_json() for x in s.result.skills] == [x.to_json() for x in fresh.skills]
        return diags(s.result)

    s.refresh()
    before = len(taken)
    s.refresh()
    if _notify.notifier() is not None:
        assert len(taken) == before  # nothing changed: sys.path not looked at again
    assert same_as_fresh() == []

    info = install(site, "probe-pack", "1.0", {"probe": "probe_pack_one"}, "skillpath.packs")
    s.refresh()
    assert any("probe_pack_one" in m for m in same_as_fresh())
    (info / "entry_points.txt").write_text("[skillpath.packs]\nprobe = probe_pack_two\n")
    s.refresh()
    got = same_as_fresh()
    assert any("probe_pack_two" in m for m in got) and not any("pack_one" in m for m in got)
    shutil.rmtree(info)
    s.refresh()
    assert same_as_fresh() == []
    other = tmp_path / "other"
    other.mkdir()
    install(other, "probe-late", "1.0", {"late": "probe_pack_late"}, "skillpath.packs")
    monkeypatch.syspath_prepend(str(other))
    s.refresh()
    assert any("probe_pack_late" in m for m in same_as_fresh())
