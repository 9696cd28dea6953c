"""Run the real agents once, non-interactively, against :mod:`fakemodel`, and
pull the skills listing out of what they sent the model."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from fakemodel import FakeModel

__all__ = ["claude_listing", "codex_listing", "opencode_listing", "run_agent"]

TIMEOUT = 240


def _texts(value: Any) -> list[str]:
    """Every string found anywhere in a JSON value, depth first."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def _base_env(home: Path, bin_dir: Path) -> dict[str, str]:
    return {
        "PATH": os.pathsep.join([str(bin_dir), "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": str(home),
        "TERM": "dumb",
        "LANG": "C.UTF-8",
    }


def run_agent(
    agent: str,
    command: Path,
    fm: FakeModel,
    *,
    home: Path,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    codex_config: str = "",
    codex_model: str = "fake",
    opencode_config: Mapping[str, Any] | None = None,
    prefix: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """Run ``agent`` (``claude``, ``codex``, ``opencode``) once in ``cwd``; return the
    bodies of the model requests it made. ``codex_model`` is the model Codex is told it
    talks to (its metadata, when Codex knows the name, sets the listing budget).
    ``prefix`` is put before the command (e.g. a private mount namespace)."""
    full = _base_env(home, command.parent)
    fm.take()
    if agent == "claude":
        full.update(
            ANTHROPIC_BASE_URL=fm.url,
            ANTHROPIC_API_KEY="sk-test",
            DISABLE_AUTOUPDATER="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            CLAUDE_CODE_DISABLE_BUNDLED_SKILLS="1",
        )
        cmd = [str(command), "-p", "hi", "--output-format", "json"]
    elif agent == "codex":
        codex_home = home / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        (codex_home / "config.toml").write_text(
            f'model = "{codex_model}"\nmodel_provider = "fake"\n'
            f'[model_providers.fake]\nname = "fake"\nbase_url = "{fm.url}/v1"\n'
            'wire_api = "responses"\nenv_key = "FAKE_MODEL_KEY"\n' + codex_config
        )
        full.update(CODEX_HOME=str(codex_home), FAKE_MODEL_KEY="test")
        cmd = [str(command), "exec", "--skip-git-repo-check", "hi"]
    elif agent == "opencode":
        config: dict[str, Any] = {
            "provider": {
                "fake": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "fake",
                    "options": {"baseURL": fm.url + "/v1", "apiKey": "test"},
                    "models": {"fake": {"name": "fake"}},
                }
            },
            "model": "fake/fake",
            "small_model": "fake/fake",
        }
        config.update(opencode_config or {})
        full.update(
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_DATA_HOME=str(home / ".local/share"),
            XDG_CACHE_HOME=str(home / ".cache"),
            XDG_STATE_HOME=str(home / ".local/state"),
            OPENCODE_CONFIG_CONTENT=json.dumps(config),
            OPENCODE_DISABLE_AUTOUPDATE="1",
            OPENCODE_DISABLE_LSP_DOWNLOAD="1",
            OPENCODE_DISABLE_DEFAULT_PLUGINS="1",
            OPENCODE_DISABLE_MODELS_FETCH="1",
            OPENCODE_DISABLE_SHARE="1",
        )
        cmd = [str(command), "run", "--model", "fake/fake", "hi"]
    else:
        raise ValueError(f"unknown agent {agent!r}")
    full.update(env or {})
    done = subprocess.run(
        [*prefix, *cmd],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    bodies = [r.body for r in fm.take() if r.body]
    if done.returncode != 0 or not bodies:
        raise AssertionError(
            f"{agent} exited {done.returncode} after {len(bodies)} model requests\n"
            f"stdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-4000:]}"
        )
    return bodies


def _find(bodies: list[dict[str, Any]], pattern: str) -> str | None:
    rx = re.compile(pattern, re.S)
    for body in bodies:
        for text in _texts(body):
            m = rx.search(text)
            if m:
                return m.group(0)
    return None


CLAUDE_HEADER = "The following skills are available for use with the Skill tool:\n\n"


def claude_listing(bodies: list[dict[str, Any]]) -> str | None:
    """The entry lines of Claude Code's skills listing message (``None`` when absent)."""
    for body in bodies:
        for text in _texts(body.get("messages", [])):
            at = text.find(CLAUDE_HEADER)
            if at >= 0:
                rest = text[at + len(CLAUDE_HEADER) :]
                return rest.split("\n\n", 1)[0].rstrip("\n")
    return None


def codex_listing(bodies: list[dict[str, Any]]) -> str | None:
    """The whole ``<skills_instructions>…</skills_instructions>`` block Codex sent."""
    return _find(bodies, r"<skills_instructions>.*?</skills_instructions>")


def opencode_listing(bodies: list[dict[str, Any]]) -> str | None:
    """The ``<available_skills>…</available_skills>`` block of OpenCode's main request."""
    return _find(bodies, r"<available_skills>.*?</available_skills>")
