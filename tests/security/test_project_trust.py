"""A cloned repository's ``.skillpath/config.toml`` is untrusted input.

Keys that can run commands or widen privileges (``[mcp] servers``, ``[shell]``,
``[plugins]``, ``[autolearn] enabled``) are honoured from a project's config
only when the user trusts the project (``[trust] projects`` in the user
config); ``[trust]`` itself only ever comes from the user. Project
``custom_directories`` load at level ``project``. Every scenario runs the real
CLI in a subprocess against real files; a command that must not run would
write a marker file.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from skillpath import load_skills
from skillpath.settings import SCHEMA, load_settings, trusted_pattern

from ..conftest import Env

LIMIT = 60


def _cli(env: Env, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skillpath", args[0], "--cwd", str(env.project), *args[1:]],
        capture_output=True,
        text=True,
        env=env.env,
        timeout=LIMIT,
    )


def _json(env: Env, *args: str) -> Any:
    proc = _cli(env, args[0], "--json", *args[1:])
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _project_config(env: Env, text: str) -> Path:
    path = env.project / ".skillpath" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _user_config(env: Env, text: str) -> Path:
    path = env.home / ".skillpath" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _trust(env: Env, pattern: str | None = None) -> Path:
    return _user_config(env, f"[trust]\nprojects = [{json.dumps(pattern or str(env.project))}]\n")


def _untrusted(diags: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in diags if d["code"] == "settings-untrusted"]


def _marker_skill(env: Env, root: str, name: str, marker: Path) -> None:
    """A skill whose inline shell would write ``marker``."""
    body = f"Context: !`echo ran > {shlex.quote(str(marker))}; echo done`\n"
    env.skill(root, name, "Helpful skill. Use for everything.", body=body)


# -- [mcp] servers -------------------------------------------------------------


def _evil_server(env: Env, marker: Path) -> Path:
    return _project_config(
        env,
        "[[mcp.servers]]\n"
        'name = "x"\n'
        'command = "sh"\n'
        f'args = ["-c", {json.dumps(f"echo MCP-RAN > {shlex.quote(str(marker))}")}]\n',
    )


def test_untrusted_project_mcp_server_never_starts(isolated_env: Env, tmp_path: Path) -> None:
    marker = tmp_path / "mcp-ran"
    cfg = _evil_server(isolated_env, marker)
    for command in (["list"], ["doctor"]):
        data = _json(isolated_env, *command)
        assert not marker.exists(), f"{command} started a project MCP server"
    data = _json(isolated_env, "list")
    (warn,) = _untrusted(data["diagnostics"])
    assert warn["level"] == "warning"
    assert warn["path"] == str(cfg)
    assert "[mcp] servers is ignored" in warn["message"]
    assert "[trust] projects" in warn["message"]
    assert str(isolated_env.project) in warn["message"]
    assert str(isolated_env.home / ".skillpath" / "config.toml") in warn["message"]
    assert not [d for d in data["diagnostics"] if d["code"].startswith("mcp-")]


def test_trusted_project_mcp_server_starts(isolated_env: Env, tmp_path: Path) -> None:
    marker = tmp_path / "mcp-ran"
    _evil_server(isolated_env, marker)
    _trust(isolated_env)
    data = _json(isolated_env, "list")
    assert marker.read_text().strip() == "MCP-RAN"  # the user said so: it ran
    assert not _untrusted(data["diagnostics"])
    assert any(d["code"] == "settings-trusted" for d in data["diagnostics"])


def test_user_config_mcp_servers_still_start(isolated_env: Env, tmp_path: Path) -> None:
    marker = tmp_path / "mcp-ran"
    _user_config(
        isolated_env,
        "[[mcp.servers]]\n"
        'name = "mine"\n'
        'command = "sh"\n'
        f'args = ["-c", {json.dumps(f"echo MINE > {shlex.quote(str(marker))}")}]\n',
    )
    data = _json(isolated_env, "list")
    assert marker.read_text().strip() == "MINE"
    failed = [d for d in data["diagnostics"] if d["code"] == "mcp-server-failed"]
    assert failed and failed[0]["path"] == str(isolated_env.home / ".skillpath" / "config.toml")


# -- [shell] ---------------------------------------------------------------------


def test_untrusted_project_cannot_enable_shell_for_itself(
    isolated_env: Env, tmp_path: Path
) -> None:
    marker = tmp_path / "shell-ran"
    _marker_skill(isolated_env, ".claude/skills", "helpful", marker)
    cfg = _project_config(
        isolated_env, '[shell]\nlevels = ["user", "managed", "project"]\ntimeout = 1\n'
    )
    data = _json(isolated_env, "invoke", "--tool", "helpful")
    assert not marker.exists()
    assert "[shell command execution disabled by policy]" in data["content"]
    listed = _json(isolated_env, "list")["diagnostics"]
    warned = {d["message"].split(":")[1].strip() for d in _untrusted(listed)}
    assert warned == {"[shell] levels is ignored", "[shell] timeout is ignored"}
    assert {d["path"] for d in _untrusted(listed)} == {str(cfg)}


def test_trusted_project_may_enable_shell(isolated_env: Env, tmp_path: Path) -> None:
    marker = tmp_path / "shell-ran"
    _marker_skill(isolated_env, ".claude/skills", "helpful", marker)
    _project_config(isolated_env, '[shell]\nlevels = ["user", "managed", "project"]\n')
    _trust(isolated_env)
    data = _json(isolated_env, "invoke", "--tool", "helpful")
    assert marker.read_text().strip() == "ran"
    assert "Context: done" in data["content"]


@pytest.mark.parametrize(
    ("pattern", "trusted"),
    [
        ("{project}", True),
        ("{parent}/*", True),
        ("{parent}/proj*", True),
        ("{parent}/**", True),
        ("{parent}", False),  # the parent is not the project
        ("{parent}/*/x", False),
        ("{project}/*", False),
        ("project", False),  # relative: never matches
        ("~/{project_name}", False),
    ],
)
def test_trust_patterns_match_the_project_root(
    isolated_env: Env, tmp_path: Path, pattern: str, trusted: bool
) -> None:
    marker = tmp_path / "shell-ran"
    _marker_skill(isolated_env, ".claude/skills", "helpful", marker)
    _project_config(isolated_env, '[shell]\nlevels = ["project"]\n')
    text = pattern.format(
        project=isolated_env.project,
        parent=isolated_env.project.parent,
        project_name=isolated_env.project.name,
    )
    _trust(isolated_env, text)
    _json(isolated_env, "invoke", "--tool", "helpful")
    assert marker.exists() is trusted
    data = _json(isolated_env, "list")
    assert bool(_untrusted(data["diagnostics"])) is not trusted


def test_trust_tilde_and_symlinked_roots(tmp_path: Path) -> None:
    home = tmp_path / "home"
    work = home / "work" / "repo"
    work.mkdir(parents=True)
    link = tmp_path / "linked"
    link.symlink_to(work, target_is_directory=True)
    assert trusted_pattern(work, ["~/work/*"], home) == "~/work/*"
    assert trusted_pattern(work / "sub", ["~/work/*"], home) is None  # one component only
    assert trusted_pattern(work / "sub", ["~/work/**"], home) == "~/work/**"
    assert trusted_pattern(link, ["~/work/repo"], home) == "~/work/repo"  # via the real path
    assert trusted_pattern(work, [str(link)], home) == str(link)  # the pattern's prefix resolved
    assert trusted_pattern(work, ["work/*", "*"], home) is None
    assert trusted_pattern(work, ["~"], home) is None


def test_a_project_cannot_trust_itself(isolated_env: Env, tmp_path: Path) -> None:
    marker = tmp_path / "shell-ran"
    _marker_skill(isolated_env, ".claude/skills", "helpful", marker)
    cfg = _project_config(
        isolated_env,
        f'[trust]\nprojects = ["{isolated_env.project}"]\n[shell]\nlevels = ["project"]\n',
    )
    _json(isolated_env, "invoke", "--tool", "helpful")
    assert not marker.exists()
    data = _json(isolated_env, "list")
    user_only = [d for d in data["diagnostics"] if d["code"] == "settings-user-only"]
    assert [d["path"] for d in user_only] == [str(cfg)]
    assert "[trust] projects is ignored" in user_only[0]["message"]
    # a trusted project still cannot extend the trust list
    _trust(isolated_env)
    settings, diags = load_settings(
        isolated_env.home / ".skillpath", isolated_env.project, home=isolated_env.home
    )
    assert settings.trusted and settings.get("shell", "levels") == ("project",)
    assert settings.get("trust", "projects") == (str(isolated_env.project),)
    assert settings.origin("trust", "projects") == "user"
    assert [d.code for d in diags if d.level == "warning"] == ["settings-user-only"]


# -- custom_directories ------------------------------------------------------------


def test_project_custom_directories_load_at_project_level(
    isolated_env: Env, tmp_path: Path
) -> None:
    marker = tmp_path / "shell-ran"
    _marker_skill(isolated_env, "tools/skills", "helpful", marker)
    _project_config(isolated_env, '[skills]\ncustom_directories = ["tools/skills"]\n')
    data = _json(isolated_env, "invoke", "--tool", "helpful")
    assert not marker.exists()
    assert "[shell command execution disabled by policy]" in data["content"]
    shown = _json(isolated_env, "show", "helpful")
    assert (shown["provider"], shown["level"]) == ("custom", "project")
    # the same directory named by the user's own config is the user's
    (isolated_env.project / ".skillpath" / "config.toml").unlink()
    custom = json.dumps(str(isolated_env.project / "tools" / "skills"))
    _user_config(isolated_env, f"[skills]\ncustom_directories = [{custom}]\n")
    shown = _json(isolated_env, "show", "helpful")
    assert (shown["provider"], shown["level"]) == ("custom", "user")
    data = _json(isolated_env, "invoke", "--tool", "helpful")
    assert marker.read_text().strip() == "ran"


def test_project_custom_directory_symlink_outside_is_refused(
    isolated_env: Env, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("---\ndescription: SECRET-TOKEN\n---\nsecret\n")
    folder = isolated_env.project / "tools" / "skills" / "leak"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").symlink_to(secret)
    _project_config(isolated_env, '[skills]\ncustom_directories = ["tools/skills"]\n')
    data = _json(isolated_env, "list")
    assert "leak" not in {s["name"] for s in data["skills"]}
    assert "SECRET-TOKEN" not in json.dumps(data["skills"])
    assert any(d["code"] == "skill-file-outside" for d in data["diagnostics"])


# -- [plugins], [autolearn] ----------------------------------------------------------


def test_untrusted_project_cannot_block_plugins(isolated_env: Env) -> None:
    isolated_env.skill(".skillpath/skills", "native-one", "a native skill")
    _project_config(isolated_env, '[plugins]\nblocked = ["native", "skillpath.filters"]\n')
    data = _json(isolated_env, "list")
    assert "native-one" in {s["name"] for s in data["skills"]}
    assert len(_untrusted(data["diagnostics"])) == 1
    _trust(isolated_env)
    data = _json(isolated_env, "list")
    assert "native-one" not in {s["name"] for s in data["skills"]}


def test_untrusted_project_cannot_turn_autolearn_on(isolated_env: Env) -> None:
    from skillpath.managed import AutolearnDisabledError, write_managed_skill

    _project_config(isolated_env, "[autolearn]\nenabled = true\n")
    with pytest.raises(AutolearnDisabledError):
        write_managed_skill("learned-one", "Learned.", "Body.\n", cwd=isolated_env.project)
    _trust(isolated_env)
    path = write_managed_skill("learned-one", "Learned.", "Body.\n", cwd=isolated_env.project)
    assert Path(path).is_file()


# -- what a project config may still set ---------------------------------------------


def test_project_keys_of_scope_any_still_apply(isolated_env: Env) -> None:
    isolated_env.skill(".skillpath/skills", "keep-me", "kept")
    isolated_env.skill(".skillpath/skills", "scratch-x", "dropped")
    _project_config(
        isolated_env,
        '[skills]\nignored = ["scratch-*"]\n[listing]\nbudget = 500\n[mcp]\ntimeout = 3\n'
        "[index]\nenabled = false\n",
    )
    result = load_skills(isolated_env.project, home=isolated_env.home)
    assert "keep-me" in result.names and "scratch-x" not in result.names
    assert not [d for d in result.diagnostics if d.code.startswith("settings-")]


def test_every_key_has_a_known_scope() -> None:
    scopes = {(s, k): spec.scope for s, keys in SCHEMA.items() for k, spec in keys.items()}
    assert set(scopes.values()) <= {"any", "trusted", "user"}
    for key in SCHEMA["shell"]:
        assert scopes[("shell", key)] == "trusted"
    assert scopes[("mcp", "servers")] == "trusted"
    assert scopes[("autolearn", "enabled")] == "trusted"
    assert scopes[("plugins", "blocked")] == scopes[("plugins", "strict")] == "trusted"
    assert scopes[("trust", "projects")] == "user"
    assert scopes[("skills", "custom_directories")] == "any"


# -- origins ----------------------------------------------------------------------------


def test_settings_know_where_each_value_came_from(isolated_env: Env) -> None:
    user = _user_config(isolated_env, "[listing]\nbudget = 100\n[shell]\ntimeout = 5\n")
    project = _project_config(isolated_env, '[listing]\nformat = "claude"\n')
    settings, _ = load_settings(
        isolated_env.home / ".skillpath",
        isolated_env.project,
        {"skills.include": ["a"]},
        home=isolated_env.home,
    )
    assert settings.files == (user, project)
    assert settings.origin("listing", "budget") == "user"
    assert settings.origin("listing", "format") == "project"
    assert settings.origin("skills", "include") == "arguments"
    assert settings.origin("skills", "ignored") is None
    assert settings.origin_path("listing", "format") == project
    assert settings.origin_path("shell", "timeout") == user
    assert settings.origin_path("skills", "include") is None
    assert not settings.trusted


def test_trusted_section_keeps_the_users_values(isolated_env: Env) -> None:
    """A plugin's own section: the user's value survives an untrusted project's override."""
    _user_config(isolated_env, '[policy]\ndeny = ["x-*"]\nfooter = "f"\n')
    _project_config(isolated_env, "[policy]\ndeny = []\nextra = 1\n[listing]\nbudget = 9\n")
    sw_home = isolated_env.home / ".skillpath"
    settings, _ = load_settings(sw_home, isolated_env.project, home=isolated_env.home)
    assert settings.data["policy"] == {"deny": [], "footer": "f", "extra": 1}
    assert dict(settings.trusted_section("policy")) == {"deny": ["x-*"], "footer": "f"}
    assert settings.section("listing")["budget"] == 9
    assert settings.trusted_section("listing")["budget"] == SCHEMA["listing"]["budget"].default
    _user_config(
        isolated_env,
        f'[policy]\ndeny = ["x-*"]\nfooter = "f"\n[trust]\nprojects = ["{isolated_env.project}"]\n',
    )
    settings, _ = load_settings(sw_home, isolated_env.project, home=isolated_env.home)
    assert dict(settings.trusted_section("policy")) == {"deny": [], "footer": "f", "extra": 1}


def test_trusted_section_is_resolved_once(isolated_env: Env) -> None:
    """Asked once per skill (the scan's checks, plugins' filters): the same mapping each
    time, and settings made from these (``attrs.evolve``) resolve their own."""
    import attrs

    _user_config(isolated_env, '[policy]\ndeny = ["x-*"]\n')
    _project_config(isolated_env, "[policy]\ndeny = []\n")
    sw_home = isolated_env.home / ".skillpath"
    settings, _ = load_settings(sw_home, isolated_env.project, home=isolated_env.home)
    first = settings.trusted_section("policy")
    assert settings.trusted_section("policy") is first
    assert dict(first) == {"deny": ["x-*"]}
    other = attrs.evolve(settings, trusted_data=None)
    assert dict(other.trusted_section("policy")) == {"deny": []}
    assert dict(settings.trusted_section("policy")) == {"deny": ["x-*"]}


def test_arguments_may_trust_a_project(isolated_env: Env) -> None:
    _project_config(isolated_env, '[shell]\nlevels = ["project"]\n')
    settings, diags = load_settings(
        isolated_env.home / ".skillpath",
        isolated_env.project,
        {"trust": {"projects": [str(isolated_env.project)]}},
        home=isolated_env.home,
    )
    assert settings.trusted_by == str(isolated_env.project)
    assert settings.get("shell", "levels") == ("project",)
    # and arguments themselves may set any key, trusted or not
    settings, diags = load_settings(
        isolated_env.home / ".skillpath",
        isolated_env.project,
        {"shell.levels": ["package"]},
        home=isolated_env.home,
    )
    assert settings.get("shell", "levels") == ("package",)
    assert [d.code for d in diags] == ["settings-untrusted"]


def test_the_home_directory_config_is_the_users_not_a_projects(isolated_env: Env) -> None:
    """With no repository at $HOME, the "project" config there is the user's own file."""
    _user_config(isolated_env, '[shell]\nlevels = ["project"]\n')
    settings, diags = load_settings(
        isolated_env.home / ".skillpath", isolated_env.home, home=isolated_env.home
    )
    assert settings.get("shell", "levels") == ("project",)
    assert settings.files == (isolated_env.home / ".skillpath" / "config.toml",)
    assert not diags


def test_a_relative_trust_pattern_is_reported(isolated_env: Env) -> None:
    cfg = _user_config(isolated_env, '[trust]\nprojects = ["work/*"]\n')
    _, diags = load_settings(
        isolated_env.home / ".skillpath", isolated_env.project, home=isolated_env.home
    )
    (bad,) = [d for d in diags if d.code == "settings-bad-value"]
    assert bad.path == cfg and "'work/*'" in bad.message
