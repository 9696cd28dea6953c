"""The persistent cache of MCP server listings: reused, never stale, never trusted blindly.

A real stdio server (``fixtures/changing_server.py``) serves prompts from a
JSON file the tests rewrite. ``clear_cache()`` stands for a new process (it
forgets what this process holds and closes the connections); the listing
cache on disk is what carries over. The clock of the listing cache is
injected (``_listcache._clock``): no test sleeps.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from skillpath import load_skills
from skillpath.cache import files as _cachefile
from skillpath.cache import replay as _replay
from skillpath.errors import PromptError
from skillpath.session import SkillSession
from skillpath_mcp import _catalog, _listcache
from skillpath_mcp.config import ServerConfig
from skillpath_mcp.provider import clear_cache

FIXTURE = Path(__file__).parent / "fixtures" / "changing_server.py"
OTHER = 12345  # a user id that is not the one running the tests
ROOT_ONLY = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="giving files to another user needs root",
)


class Server:
    """The fixture server's prompts file, log and failure switch, and its config entry."""

    def __init__(self, tmp: Path, *, notify: bool = False, script: Path = FIXTURE) -> None:
        self.prompts = tmp / "prompts.json"
        self.log = tmp / "server.log"
        self.fail = tmp / "fail-now"
        self.entry: dict[str, Any] = {
            "name": "fx",
            "command": sys.executable,
            "args": [str(script), *(["--notify"] if notify else [])],
            "env": {
                "FIXTURE_PROMPTS": str(self.prompts),
                "FIXTURE_LOG": str(self.log),
                "FIXTURE_FAIL": str(self.fail),
            },
        }
        self.serve({"alpha": "Alpha v1."})

    def serve(self, prompts: dict[str, str], text: str = "text v1") -> None:
        """Make the server list ``prompts`` (name -> description) from now on."""
        data = [{"name": n, "description": d, "text": f"{n}: {text}"} for n, d in prompts.items()]
        self.prompts.write_text(json.dumps(data), encoding="utf-8")

    def starts(self) -> int:
        return self.lines().count("start")

    def lines(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def settings(self, **extra: Any) -> dict[str, Any]:
        return {"mcp": {"servers": [{**self.entry, **extra}]}}


def _remote(result: Any) -> dict[str, str]:
    return {
        s.name: s.description
        for s in result.skills
        if s.source.provider == "mcp" and s.source.loaded_from == "mcp"
    }


def _errors(result: Any) -> list[str]:
    return [d.message for d in result.diagnostics if d.code == "mcp-server-failed"]


def _files() -> list[Path]:
    folder = Path(_listcache.cache_dir(os.environ))
    return sorted(folder.glob("*.lst")) if folder.is_dir() else []


@pytest.fixture
def server(world: Any, tmp_path: Path) -> Server:
    return Server(tmp_path)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    """The listing cache's clock: ``clock[0]`` is now (seconds)."""
    now = [1_800_000_000.0]
    monkeypatch.setattr(_listcache, "_clock", lambda: now[0])
    yield now


def load(world: Any, settings: dict[str, Any], **env: str) -> Any:
    return load_skills(world.project, home=world.home, settings=settings, env={**os.environ, **env})


# -- reuse -------------------------------------------------------------------------


def test_a_listing_is_reused_by_the_next_process_without_starting_the_server(
    world: Any, server: Server, clock: list[float]
) -> None:
    first = load(world, server.settings())
    assert _remote(first) == {"alpha": "Alpha v1."}
    assert first.get("alpha").source.detail["cached"] is False
    assert server.starts() == 1
    assert len(_files()) == 1
    clear_cache()
    clock[0] += 60
    second = load(world, server.settings())
    assert _remote(second) == {"alpha": "Alpha v1."}
    assert server.starts() == 1  # not started again
    detail = second.get("alpha").source.detail
    assert detail["cached"] is True
    assert detail["listed_at"] == first.get("alpha").source.detail["listed_at"]


def test_the_cache_files_are_private(world: Any, server: Server) -> None:
    load(world, server.settings())
    (path,) = _files()
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o077 == 0


def test_cache_ttl_zero_lists_every_run(world: Any, server: Server) -> None:
    load(world, server.settings(cache_ttl=0))
    clear_cache()
    load(world, server.settings(cache_ttl=0))
    assert server.starts() == 2
    assert _files() == []


# -- invalidation -------------------------------------------------------------------


def test_list_changed_invalidates_the_listing(
    world: Any, tmp_path: Path, clock: list[float]
) -> None:
    server = Server(tmp_path, notify=True)
    heard = threading.Event()
    _catalog.on_list_changed(lambda config, env: heard.set())
    session = SkillSession.open(
        world.project, home=world.home, settings=server.settings(), env=dict(os.environ)
    )
    assert _remote(session.result) == {"alpha": "Alpha v1."}
    server.serve({"alpha": "Alpha v2.", "beta": "Beta."})
    assert heard.wait(60), "the server's list_changed never arrived"
    assert _files() == []  # the notification dropped the cached listing
    session.refresh()
    assert _remote(session.result) == {"alpha": "Alpha v2.", "beta": "Beta."}
    assert server.starts() == 1  # listed again over the open connection
    clear_cache()
    again = load(world, server.settings())
    assert _remote(again) == {"alpha": "Alpha v2.", "beta": "Beta."}
    assert server.starts() == 1  # the new listing was cached


def test_watch_yields_what_a_list_changed_changed(
    world: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``watch_skills`` sees no file change when a server's list changes; the
    notification makes it load again and yield the new skill. The list changes
    only after the watcher's own first reload, so nothing but the notification
    can make it load again."""
    from skillpath.watch import SkillAdded, watch_skills
    from skillpath_mcp import provider

    server = Server(tmp_path, notify=True)
    loads = threading.Semaphore(0)
    real = provider.discover

    def counted(ctx: Any) -> Any:
        try:
            return real(ctx)
        finally:
            loads.release()

    monkeypatch.setattr(provider, "discover", counted)

    def change_after_the_watcher_settled() -> None:
        for _ in range(2):  # the first load, then the new watcher's first-tick load
            assert loads.acquire(timeout=60)
        server.serve({"alpha": "Alpha v1.", "beta": "Beta."})

    changer = threading.Thread(target=change_after_the_watcher_settled, daemon=True)
    changer.start()
    seen: list[list[str]] = []
    for changes in watch_skills(
        world.project,
        home=world.home,
        env=dict(os.environ),
        settings=server.settings(),
        poll_ms=50,
        timeout=90,
    ):
        seen.append(sorted(e.name for e in changes if isinstance(e, SkillAdded)))
        break
    changer.join(60)
    assert seen == [["beta"]]


def test_without_list_changed_the_ttl_bounds_how_stale_a_listing_gets(
    world: Any, server: Server, clock: list[float]
) -> None:
    load(world, server.settings(cache_ttl=600))
    server.serve({"alpha": "Alpha v2."})
    clock[0] += 599
    held = load(world, server.settings(cache_ttl=600))  # the same process
    assert _remote(held) == {"alpha": "Alpha v1."}
    clear_cache()
    cached = load(world, server.settings(cache_ttl=600))  # a new process
    assert _remote(cached) == {"alpha": "Alpha v1."}
    assert server.starts() == 1
    clock[0] += 1  # the TTL ends
    expired = load(world, server.settings(cache_ttl=600))
    assert _remote(expired) == {"alpha": "Alpha v2."}
    assert server.starts() == 2
    clear_cache()
    assert _remote(load(world, server.settings(cache_ttl=600))) == {"alpha": "Alpha v2."}
    assert server.starts() == 2


def test_the_default_ttl_is_documented_and_configurable(
    world: Any, server: Server, clock: list[float]
) -> None:
    from skillpath_mcp.config import DEFAULT_CACHE_TTL

    assert DEFAULT_CACHE_TTL == 900
    load(world, server.settings())
    clear_cache()
    clock[0] += DEFAULT_CACHE_TTL - 1
    load(world, server.settings())
    assert server.starts() == 1
    clear_cache()
    clock[0] += 1
    load(world, server.settings())
    assert server.starts() == 2
    # [mcp] cache_ttl applies to every server without its own
    settings = server.settings()
    settings["mcp"]["cache_ttl"] = 10
    clear_cache()
    clock[0] += 11
    load(world, settings)
    assert server.starts() == 3


def test_a_listing_stamped_in_the_future_is_not_believed(
    world: Any, server: Server, clock: list[float]
) -> None:
    load(world, server.settings())
    clear_cache()
    clock[0] -= 3600  # the clock was set back
    load(world, server.settings())
    assert server.starts() == 2


def test_refresh_lists_the_server_again(world: Any, server: Server, clock: list[float]) -> None:
    load(world, server.settings())
    server.serve({"alpha": "Alpha v2."})
    fresh = load(world, server.settings(), SKILLPATH_MCP_REFRESH="1")
    assert _remote(fresh) == {"alpha": "Alpha v2."}
    clear_cache()
    assert _remote(load(world, server.settings())) == {"alpha": "Alpha v2."}


@pytest.mark.parametrize(
    "change",
    [
        {"prefix": "fx-"},
        {"timeout": 7},
        {"cwd": "."},
        {"args": "extra-arg"},
        {"env": ("EXTRA", "1")},
    ],
    ids=["prefix", "timeout", "cwd", "args", "env"],
)
def test_a_changed_config_entry_lists_again(
    world: Any, server: Server, clock: list[float], change: dict[str, Any]
) -> None:
    load(world, server.settings())
    server.serve({"alpha": "Alpha v2."})
    clear_cache()
    entry = dict(server.entry)
    if "args" in change:
        entry["args"] = [*entry["args"], change["args"]]
    elif "env" in change:
        entry["env"] = {**entry["env"], change["env"][0]: change["env"][1]}
    else:
        entry.update(change)
    result = load(world, {"mcp": {"servers": [entry]}})
    assert sorted(_remote(result).values()) == ["Alpha v2."]
    assert server.starts() == 2


def test_an_inherited_variable_lists_again(
    world: Any, server: Server, clock: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    load(world, server.settings())
    server.serve({"alpha": "Alpha v2."})
    clear_cache()
    monkeypatch.setenv("PATH", os.environ.get("PATH", "") + os.pathsep + "/nonexistent")
    assert _remote(load(world, server.settings())) == {"alpha": "Alpha v2."}


def test_editing_the_server_script_lists_again(
    world: Any, tmp_path: Path, clock: list[float]
) -> None:
    script = tmp_path / "server.py"
    shutil.copy(FIXTURE, script)
    server = Server(tmp_path, script=script)
    load(world, server.settings())
    server.serve({"alpha": "Alpha v2."})
    clear_cache()
    assert _remote(load(world, server.settings())) == {"alpha": "Alpha v1."}
    clear_cache()
    script.write_text(script.read_text() + "\n# a new version\n")
    assert _remote(load(world, server.settings())) == {"alpha": "Alpha v2."}
    assert server.starts() == 2


def test_replacing_the_command_lists_again(
    world: Any, tmp_path: Path, server: Server, clock: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command is found on ``PATH`` (as the subprocess finds it) and its file
    identity is part of the listing's: a new version of it lists the server again."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    command = bin_dir / "mcp-python"
    command.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    command.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    entry = {**server.entry, "command": "mcp-python"}
    load(world, {"mcp": {"servers": [entry]}})
    server.serve({"alpha": "Alpha v2."})
    clear_cache()
    assert _remote(load(world, {"mcp": {"servers": [entry]}})) == {"alpha": "Alpha v1."}
    clear_cache()
    replacement = bin_dir / "mcp-python.new"
    replacement.write_text(f'#!/bin/sh\n# version 2\nexec "{sys.executable}" "$@"\n')
    replacement.chmod(0o755)
    replacement.replace(command)
    assert _remote(load(world, {"mcp": {"servers": [entry]}})) == {"alpha": "Alpha v2."}
    assert server.starts() == 2


# -- failures ------------------------------------------------------------------------


def test_a_failure_is_remembered_for_retry_after(
    world: Any, server: Server, clock: list[float]
) -> None:
    server.fail.touch()
    failed = load(world, server.settings())
    (error,) = _errors(failed)
    assert "told to fail" in error  # its diagnostic, with the server's stderr
    assert "not tried again for 300s" in error
    assert len(_files()) == 1  # the failure, not a listing
    assert _listcache.load(_config(server), os.environ) is None
    clear_cache()
    again = load(world, server.settings())  # the next run shows it without a start
    (remembered,) = _errors(again)
    assert "told to fail" in remembered and "not tried again until" in remembered
    assert server.starts() == 1
    server.fail.unlink()
    clear_cache()
    clock[0] += 299
    assert _errors(load(world, server.settings()))  # still within retry_after
    assert server.starts() == 1
    clear_cache()
    clock[0] += 2  # retry_after is over: tried again, and the listing cached
    assert _remote(load(world, server.settings())) == {"alpha": "Alpha v1."}
    assert server.starts() == 2
    assert _listcache.load(_config(server), os.environ) is not None


def test_retry_after_zero_remembers_no_failure(
    world: Any, server: Server, clock: list[float]
) -> None:
    server.fail.touch()
    settings = {**server.settings(), "mcp": {**server.settings()["mcp"], "retry_after": 0}}
    (error,) = _errors(load(world, settings))
    assert "not tried again" not in error
    assert _files() == []
    clear_cache()
    assert _errors(load(world, settings)) == [error]  # the next run tries again
    assert server.starts() == 2


def test_a_failure_after_a_good_listing_replaces_it(
    world: Any, server: Server, clock: list[float]
) -> None:
    load(world, server.settings())
    clear_cache()
    server.fail.touch()
    refreshed = load(world, server.settings(), SKILLPATH_MCP_REFRESH="1")
    assert _errors(refreshed)  # asked for a fresh listing: the failure is shown
    assert _remote(refreshed) == {}
    # the last good listing does not stand in for the server: its failure does
    assert _listcache.load(_config(server), os.environ) is None
    clear_cache()
    assert _errors(load(world, server.settings()))  # remembered, still failing
    assert server.starts() == 2
    server.fail.unlink()
    clear_cache()
    # --refresh tries it at once
    fresh = load(world, server.settings(), SKILLPATH_MCP_REFRESH="1")
    assert _remote(fresh) == {"alpha": "Alpha v1."}
    assert server.starts() == 3


def _config(server: Server) -> ServerConfig:
    from skillpath import make_context
    from skillpath_mcp.config import parse_servers

    ctx, _diags = make_context(None, settings=server.settings())
    (config,), _ = parse_servers(ctx)
    return config


def test_a_partial_listing_is_not_stored(world: Any, tmp_path: Path) -> None:
    config = ServerConfig(name="fx", transport="stdio", command=sys.executable)
    partial = _catalog.Catalog("fx", problems=("prompts/list failed: boom",), partial=True)
    assert not _listcache.store(config, os.environ, partial, 1.0)
    assert _files() == []


# -- content is never stale ------------------------------------------------------------


def test_invoking_a_cached_prompt_asks_the_server(
    world: Any, server: Server, clock: list[float]
) -> None:
    load(world, server.settings())
    server.serve({"alpha": "Alpha v1."}, text="text v2")  # same listing, new content
    clear_cache()
    session = SkillSession.open(
        world.project, home=world.home, settings=server.settings(), env=dict(os.environ)
    )
    assert session.result.get("alpha").source.detail["cached"] is True
    assert session.invoke("alpha").content.startswith("alpha: text v2\n")


def test_a_prompt_gone_from_the_server_drops_the_cached_listing(
    world: Any, server: Server, clock: list[float]
) -> None:
    load(world, server.settings())
    server.serve({"beta": "Beta."})
    clear_cache()
    session = SkillSession.open(
        world.project, home=world.home, settings=server.settings(), env=dict(os.environ)
    )
    with pytest.raises(PromptError, match="cache, which is now dropped"):
        session.invoke("alpha")
    assert _files() == []
    clear_cache()
    assert _remote(load(world, server.settings())) == {"beta": "Beta."}


def test_a_changed_skill_body_is_read_fresh_through_a_cached_listing(
    world: Any, tmp_path: Path, clock: list[float]
) -> None:
    """``skillpath serve`` publishes digests; a body edited after the listing was
    cached does not match them: the listing is fetched again and the new body used."""
    served = tmp_path / "served"
    (served / ".git").mkdir(parents=True)
    skill = served / ".skillpath" / "skills" / "notes"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\ndescription: Notes.\n---\nOld body.\n")
    other_home = tmp_path / "served-home"
    other_home.mkdir()
    entry = {
        "name": "sp",
        "command": sys.executable,
        "args": ["-m", "skillpath", "serve", "--cwd", str(served)],
        "env": {"HOME": str(other_home), "SKILLPATH_LIBRARIES": ""},
        "prefix": "sp-",
    }
    settings = {"mcp": {"servers": [entry]}}
    first = load(world, settings)
    assert first.get("sp-notes").body.strip() == "Old body."
    (skill / "SKILL.md").write_text("---\ndescription: Notes.\n---\nNew body, longer.\n")
    clear_cache()
    cached = load(world, settings)
    notes = cached.get("sp-notes")
    assert notes.source.detail["cached"] is True
    assert notes.body.strip() == "New body, longer."


# -- a hostile or damaged cache file ----------------------------------------------------


def _forge(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Rewrite cache file ``path`` with ``change`` applied to its record (valid CRC)."""
    parts = _cachefile.unseal(_listcache._MAGIC, path.read_bytes())
    assert parts is not None
    record = json.loads(bytes(parts[0]))
    change(record)
    path.write_bytes(_cachefile.seal(_listcache._MAGIC, json.dumps(record).encode()))


def _set_description(record: dict[str, Any]) -> None:
    record["catalog"]["prompts"][0]["description"] = "FORGED"


def _bad_types(record: dict[str, Any]) -> None:
    record["catalog"]["prompts"] = [{"name": 3, "arguments": "x"}]


def _old(record: dict[str, Any]) -> None:
    record["fetched"] = 0


def _other_identity(record: dict[str, Any]) -> None:
    record["identity"] = "0" * 64


def _huge_frontmatter(record: dict[str, Any]) -> None:
    record["catalog"]["skills"] = [
        {
            "uri": "skill://x/SKILL.md",
            "skill_path": "x",
            "frontmatter": {"description": "d" * (_catalog.MAX_FRONTMATTER + 10)},
            "resources": None,
            "via": "resources/list",
            "files": [],
        }
    ]


@pytest.mark.parametrize(
    "damage",
    [
        "flip-a-byte",
        "truncate",
        "empty",
        "bad-types",
        "too-old",
        "other-identity",
        "huge-frontmatter",
        "world-writable",
        "symlink",
        "fifo",
        "too-large",
        "folder-writable-by-others",
    ],
)
def test_a_damaged_or_planted_cache_file_is_not_believed(
    world: Any, server: Server, clock: list[float], tmp_path: Path, damage: str
) -> None:
    load(world, server.settings())
    (path,) = _files()
    server.serve({"alpha": "Alpha v2."})
    clear_cache()
    if damage == "flip-a-byte":
        data = bytearray(path.read_bytes())
        data[-5] ^= 0x20
        path.write_bytes(bytes(data))
    elif damage == "truncate":
        path.write_bytes(path.read_bytes()[:-7])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "bad-types":
        _forge(path, _bad_types)
    elif damage == "too-old":
        _forge(path, _old)
    elif damage == "other-identity":
        _forge(path, _other_identity)
    elif damage == "huge-frontmatter":
        _forge(path, _huge_frontmatter)
    elif damage == "world-writable":
        _forge(path, _set_description)
        path.chmod(0o666)
    elif damage == "symlink":
        elsewhere = tmp_path / "planted.lst"
        shutil.copy(path, elsewhere)
        _forge(elsewhere, _set_description)
        path.unlink()
        path.symlink_to(elsewhere)
    elif damage == "fifo":
        path.unlink()
        os.mkfifo(path)
    elif damage == "too-large":
        with path.open("ab") as f:
            f.truncate(_listcache.MAX_BYTES + 1)
    elif damage == "folder-writable-by-others":
        _forge(path, _set_description)
        path.parent.chmod(0o777)
    result = load(world, server.settings())  # must not hang, crash or believe it
    assert _remote(result) == {"alpha": "Alpha v2."}
    assert server.starts() == 2


@ROOT_ONLY
def test_a_cache_file_of_another_user_is_not_believed(
    world: Any, server: Server, clock: list[float]
) -> None:
    load(world, server.settings())
    (path,) = _files()
    _forge(path, _set_description)
    os.chown(path, OTHER, OTHER)
    clear_cache()
    assert _remote(load(world, server.settings())) == {"alpha": "Alpha v1."}
    assert server.starts() == 2


# -- the command line ------------------------------------------------------------------


def _cli(world: Any, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skillpath", *args],
        cwd=world.project,
        env={**os.environ, "SKILLPATH_INDEX_RACY_MS": "0", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_cli_list_reuses_refreshes_and_explains(world: Any, server: Server) -> None:
    world.config(world.toml_servers([server.entry]))
    first = _cli(world, "list", "--json")
    assert first.returncode == 0, first.stderr
    second = _cli(world, "list", "--json")
    assert second.stdout.replace('"cached": true', '"cached": false') == first.stdout
    assert server.starts() == 1
    server.serve({"alpha": "Alpha v2."})
    stale = json.loads(_cli(world, "list", "--json").stdout)
    assert [s["description"] for s in stale["skills"] if s["name"] == "alpha"] == ["Alpha v1."]
    fresh = json.loads(_cli(world, "list", "--refresh", "--json").stdout)
    assert [s["description"] for s in fresh["skills"] if s["name"] == "alpha"] == ["Alpha v2."]
    assert server.starts() == 2
    after = json.loads(_cli(world, "list", "--json").stdout)
    assert [s["description"] for s in after["skills"] if s["name"] == "alpha"] == ["Alpha v2."]
    assert server.starts() == 2
    doctor = _cli(world, "doctor")
    assert "MCP server 'fx': listing from the cache, fetched" in " ".join(doctor.stdout.split())
    explain = json.loads(_cli(world, "explain", "alpha", "--json").stdout)
    (listing,) = explain["listings"]
    assert listing["server"] == "fx" and listing["cached"] is True
    assert listing["age_seconds"] >= 0
    refreshed = json.loads(_cli(world, "doctor", "--refresh", "--json").stdout)
    assert refreshed["listings"][0]["cached"] is False
    assert server.starts() == 3


def test_cli_list_with_a_cached_listing_is_replayed_until_the_ttl_ends(
    world: Any, server: Server
) -> None:
    if os.isatty(1):
        pytest.skip("stdout is a terminal (pytest -s): list is never replayed to one")
    world.config(world.toml_servers([server.entry]))
    log = world.home / "snapshots.log"
    for _ in range(3):
        run = _cli(world, "list", "--json", SKILLPATH_SNAPSHOT_LOG=str(log))
        assert run.returncode == 0, run.stderr
    decisions = log.read_text().splitlines()
    assert decisions[1].startswith("not recorded: subprocess.Popen")  # the server was started
    assert decisions[3].startswith("recorded ")  # the listing came from the cache
    assert decisions[4].startswith("replayed ")
    assert server.starts() == 1
    # the snapshot holds until the listing's TTL ends
    (snap,) = (Path(_replay.cache_root(os.environ)) / "snapshots").glob("*.snap")
    (lst,) = _files()
    parts = _cachefile.unseal(_listcache._MAGIC, lst.read_bytes())
    assert parts is not None
    fetched = json.loads(bytes(parts[0]))["fetched"]
    meta = _cachefile.unseal(_replay._MAGIC, snap.read_bytes())
    assert meta is not None
    import marshal

    deadline = marshal.loads(bytes(meta[0]))[-1]
    assert deadline == int((fetched + 900) * 1_000_000_000)
    # a new listing (list --refresh) changes the cache file: the snapshot is not replayed
    server.serve({"alpha": "Alpha v2."})
    _cli(world, "list", "--refresh", "--json")
    run = _cli(world, "list", "--json", SKILLPATH_SNAPSHOT_LOG=str(log))
    assert "Alpha v2." in run.stdout
    miss = log.read_text().splitlines()[-2]
    assert miss.startswith("miss: ") and ".lst" in miss, miss


def test_the_inherited_variables_match_the_sdk() -> None:
    from mcp.client.stdio import DEFAULT_INHERITED_ENV_VARS

    assert tuple(_listcache.INHERITED_ENV_VARS) == tuple(DEFAULT_INHERITED_ENV_VARS)
