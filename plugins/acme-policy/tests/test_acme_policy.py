"""acme-policy, installed as a real plugin: source allow-list, name deny-list, footer, redaction."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from acme_policy import redact
from skillpath import load_skills, reset_plugin_host
from skillpath.session import SkillSession
from skillpath_testing import isolate_environment


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Path]]:
    home, project = isolate_environment(monkeypatch, tmp_path, cache_dir=tmp_path / "cache")
    for root, name, desc in [
        (project / ".skillpath" / "skills", "team-notes", "Project notes."),
        (project / ".skillpath" / "skills", "experimental-fast", "Experimental."),
        (home / ".claude" / "skills", "personal", "Personal claude skill."),
        (project / ".claude" / "skills", "project-claude", "Project claude skill."),
    ]:
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(
            f"---\ndescription: {desc}\n---\n"
            "Use key AKIAABCDEFGHIJKLMNOP and password = hunter2hunter2\n"
        )
    yield {"home": home, "project": project}
    reset_plugin_host()


def config(world: dict[str, Path], text: str) -> None:
    """The user's own config (``~/.skillpath/config.toml``): the policy is read from there."""
    path = world["home"] / ".skillpath" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def project_config(world: dict[str, Path], text: str) -> None:
    """The project's ``.skillpath/config.toml``: what a cloned repository can write."""
    path = world["project"] / ".skillpath" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def load(world: dict[str, Path]):  # type: ignore[no-untyped-def]
    return load_skills(world["project"], home=world["home"])


def test_inert_without_a_section(world: dict[str, Path]) -> None:
    res = load(world)
    assert {"team-notes", "experimental-fast", "personal", "project-claude"} <= set(res.names)
    assert not [s for s in res.skipped if "acme" in s.detail]
    session = SkillSession.open(world["project"], home=world["home"])
    text = session.invoke("team-notes").text
    assert "AKIAABCDEFGHIJKLMNOP" in text and "---\nFollow" not in text


def test_allow_list_and_deny_list(world: dict[str, Path]) -> None:
    config(
        world,
        '[acme_policy]\nallowed_sources = ["native", "claude/project", "packs:ACME_Skills"]\n'
        'denied_names = ["experimental-*"]\n',
    )
    res = load(world)
    assert {"team-notes", "project-claude", "code-review", "release-checklist"} <= set(res.names)
    assert "personal" not in res.names and "experimental-fast" not in res.names
    skipped = {s.skill.name: s for s in res.skipped}
    assert skipped["personal"].reason == "vetoed"
    assert (
        "source claude/user is not in [acme_policy] allowed_sources" in skipped["personal"].detail
    )
    assert "'acme-policy'" in skipped["personal"].detail
    assert "denied_names 'experimental-*'" in skipped["experimental-fast"].detail


def test_a_pack_not_on_the_allow_list_is_vetoed_by_distribution(world: dict[str, Path]) -> None:
    config(world, '[acme_policy]\nallowed_sources = ["native", "packs:other-pack"]\n')
    res = load(world)
    assert "code-review" not in res.names
    detail = {s.skill.name: s.detail for s in res.skipped}["code-review"]
    assert "packs/package (acme-skills)" in detail


def test_invalid_section_fails_closed(world: dict[str, Path]) -> None:
    config(world, '[acme_policy]\nallowed_sources = "native"\n')
    res = load(world)
    assert res.names == []
    assert all("invalid policy" in s.detail for s in res.skipped)
    assert "allowed_sources must be a list of strings" in res.skipped[0].detail


def test_footer_and_redaction_in_prompts(world: dict[str, Path]) -> None:
    config(
        world,
        '[acme_policy]\nfooter = "Follow the ACME handbook."\nredact_patterns = ["hunter[0-9]"]\n',
    )
    session = SkillSession.open(world["project"], home=world["home"])
    text = session.invoke("team-notes").text
    assert "AKIAABCDEFGHIJKLMNOP" not in text and "[REDACTED:aws-access-key]" in text
    assert "password = [REDACTED:secret]" in text
    assert text.rstrip().endswith("---\nFollow the ACME handbook.")
    assert "Base directory for this skill:" in text  # the footer comes after step 900
    config(world, "[acme_policy]\nredact = false\n")
    session = SkillSession.open(world["project"], home=world["home"])
    assert "AKIAABCDEFGHIJKLMNOP" in session.invoke("team-notes").text


def test_bad_redact_pattern_fails_closed(world: dict[str, Path]) -> None:
    import acme_policy
    from skillpath import PromptError, SkillSource, make_context, skill_from_text
    from skillpath.prompt import Invocation

    config(world, '[acme_policy]\nredact_patterns = ["(unclosed"]\n')
    res = load(world)
    assert res.names == [] and "not a regex" in res.skipped[0].detail
    ctx, _ = make_context(world["project"], home=world["home"])
    skill, _ = skill_from_text(
        "---\ndescription: d\n---\nx", name="x", source=SkillSource("native", "user")
    )
    assert skill is not None
    with pytest.raises(PromptError, match="not a regex"):
        acme_policy.transform_prompt("text", Invocation(skill), ctx)


@pytest.mark.parametrize(
    ("secret", "kind"),
    [
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "private-key"),
        ("ASIAABCDEFGHIJKLMNOP", "aws-access-key"),
        ("ghp_" + "a" * 36, "github-token"),
        ("github_pat_" + "A1_" * 10, "github-token"),
        ("xoxb-1234567890-abcdef", "slack-token"),
        ("sk-ant-" + "x" * 30, "api-key"),
        ("AIza" + "B" * 35, "google-api-key"),
        ("eyJhbGciOiJI.eyJzdWIiOiIx.SflKxwRJSMeK", "jwt"),
    ],
)
def test_redaction_patterns(secret: str, kind: str) -> None:
    text, n = redact(f"before {secret} after")
    assert n == 1 and secret not in text
    assert text == f"before [REDACTED:{kind}] after"


def test_redaction_leaves_ordinary_text_alone() -> None:
    text = "Run `git diff origin/main` and check token usage; password policy: 12 chars."
    assert redact(text) == (text, 0)
    assert redact('api_key: "abcdefgh12345"')[0] == 'api_key: "[REDACTED:secret]"'


def test_listed_by_the_cli_as_a_loaded_plugin(world: dict[str, Path]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "skillpath", "list", "--json", "--cwd", str(world["project"])],
        capture_output=True,
        text=True,
        env={**os.environ},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    config(world, '[acme_policy]\ndenied_names = ["team-*"]\n')
    proc2 = subprocess.run(
        [sys.executable, "-m", "skillpath", "list", "--json", "--cwd", str(world["project"])],
        capture_output=True,
        text=True,
        env={**os.environ},
        timeout=60,
    )
    before = {s["name"] for s in json.loads(proc.stdout)["skills"]}
    after = {s["name"] for s in json.loads(proc2.stdout)["skills"]}
    assert "team-notes" in before and before - after == {"team-notes"}


# -- a cloned repository cannot loosen (or break) the policy -------------------
def test_a_project_config_cannot_loosen_the_policy(world: dict[str, Path]) -> None:
    config(
        world,
        '[acme_policy]\nallowed_sources = ["native"]\ndenied_names = ["experimental-*"]\n'
        'footer = "Follow the ACME handbook."\n',
    )
    project_config(
        world,
        "[acme_policy]\nallowed_sources = []\ndenied_names = []\nredact = false\n"
        'footer = ""\nredact_patterns = []\n',
    )
    res = load(world)
    assert "experimental-fast" not in res.names and "personal" not in res.names
    assert "team-notes" in res.names
    session = SkillSession.open(world["project"], home=world["home"])
    text = session.invoke("team-notes").text
    assert "AKIAABCDEFGHIJKLMNOP" not in text  # still redacted
    assert text.rstrip().endswith("---\nFollow the ACME handbook.")


def test_a_project_config_alone_neither_sets_nor_breaks_the_policy(
    world: dict[str, Path],
) -> None:
    project_config(world, '[acme_policy]\nallowed_sources = "native"\nredact = false\n')
    res = load(world)
    assert {"team-notes", "experimental-fast", "personal", "project-claude"} <= set(res.names)
    assert not [s for s in res.skipped if "acme" in s.detail]


def test_a_project_the_user_trusts_may_set_it(world: dict[str, Path]) -> None:
    config(
        world,
        f'[trust]\nprojects = ["{world["project"]}"]\n'
        '[acme_policy]\ndenied_names = ["experimental-*"]\n',
    )
    project_config(world, '[acme_policy]\ndenied_names = ["team-*"]\n')
    res = load(world)
    assert "experimental-fast" in res.names and "team-notes" not in res.names
