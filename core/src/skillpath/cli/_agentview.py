"""``--agent claude-code|codex|opencode`` for ``list``, ``prompt``, ``explain`` and
``validate``: answer with that agent's view (:mod:`skillpath.views`) instead of
skillpath's own catalog."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from skillpath.cli._common import echo, emit_json, fail, terminal_safe

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skillpath.views import AgentView

__all__ = ["AGENT_NAMES", "TARGET_OF", "agent_option"]

#: ``skillpath.views.AGENTS``, spelled here so the commands import the views only when used.
AGENT_NAMES = ("claude-code", "codex", "opencode")

F = TypeVar("F", bound=Callable[..., Any])

#: ``--agent`` name -> the ``validate --target`` with the same rules.
TARGET_OF = {"claude-code": "claude", "codex": "codex", "opencode": "opencode"}


def _view(agent: str, cwd: Path | None) -> AgentView:
    from skillpath.views import view

    return view(agent, cwd if cwd is not None else Path.cwd())


def _list(v: AgentView, as_json: bool) -> None:
    if as_json:
        emit_json(
            {
                "agent": v.agent,
                "skills": [
                    {
                        "name": s.name,
                        "description": s.description,
                        "path": str(s.path),
                        "scope": s.scope,
                        "shown": s.shown,
                        "why": s.why,
                    }
                    for s in v.skills
                ],
                "dropped": [{"path": str(d.path), "reason": d.reason} for d in v.dropped],
                "warnings": list(v.warnings),
            }
        )
        return
    for s in v.shown:
        echo(terminal_safe(f"{s.name}  {s.scope}  {s.path}"))
    hidden = [s for s in v.skills if not s.shown]
    if hidden:
        echo("\nLoaded but not listed:")
        for s in hidden:
            echo(terminal_safe(f"  {s.name}  {s.path}: {s.why}"))
    if v.dropped:
        echo("\nSkipped:")
        for d in v.dropped:
            echo(terminal_safe(f"  {d.path}: {d.reason}"))
    for w in v.warnings:
        echo(terminal_safe(f"warning: {w}"), err=True)
    echo(
        f"\n{len(v.shown)} skill(s) listed by {v.agent}, {len(hidden)} hidden, "
        f"{len(v.dropped)} skipped"
    )


def _prompt(v: AgentView, as_json: bool) -> None:
    if as_json:
        emit_json({"agent": v.agent, "text": v.listing, "warnings": list(v.warnings)})
        return
    if v.listing:
        echo(v.listing)
    for w in v.warnings:
        echo(terminal_safe(f"skillpath: note: {w}"), err=True)


def _explain(v: AgentView, name: str, as_json: bool) -> None:
    verdict = v.explain(name)
    shown = any(s.shown and name in (s.name, s.path.parent.name) for s in v.skills)
    shown = shown or any(s.shown and s.name.split(" (", 1)[0] == name for s in v.skills)
    if as_json:
        emit_json({"agent": v.agent, "name": name, "shown": shown, "verdict": verdict})
    else:
        echo(terminal_safe(verdict))
    if not shown:
        fail(f"{v.agent} does not show {name!r}", error="not-shown")


def agent_option(kind: str) -> Callable[[F], F]:
    """Add ``--agent`` to the ``kind`` command (``list``, ``prompt``, ``explain``,
    ``validate``). With it, ``list``/``prompt``/``explain`` answer from the agent's
    view; ``validate`` adds the agent's ``--target``."""

    def decorate(fn: F) -> F:
        @wraps(fn)
        def wrapper(*args: Any, agent: str | None = None, **kwargs: Any) -> Any:
            if agent is None:
                return fn(*args, **kwargs)
            if kind == "validate":
                kwargs["targets"] = (TARGET_OF[agent], *kwargs.get("targets", ()))
                return fn(*args, **kwargs)
            v = _view(agent, kwargs.get("cwd"))
            as_json = bool(kwargs.get("as_json"))
            if kind == "list":
                return _list(v, as_json)
            if kind == "prompt":
                return _prompt(v, as_json)
            return _explain(v, kwargs["name"], as_json)

        help_text = {
            "list": "List what this agent would show its model, what it hides and skips.",
            "prompt": "Print this agent's own skills listing, byte for byte.",
            "explain": "Say in one line why this agent shows the skill or not.",
            "validate": "Check with this agent's own load rules (as --target).",
        }[kind]
        return click.option(  # type: ignore[return-value]
            "--agent", type=click.Choice(AGENT_NAMES), default=None, help=help_text
        )(wrapper)

    return decorate
