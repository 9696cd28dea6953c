"""Near names for a mistyped skill name, and the messages that offer them.

Used by the unknown-skill errors of :meth:`SkillSession.invoke
<skillpath.session.SkillSession.invoke>`, ``skill://`` reads and
``/skill:`` parsing, so all of them answer a typo the same way:

* :func:`near_names`: names that differ only in case first, then the closest
  names by :func:`difflib.get_close_matches` (ratio at least 0.6), at most
  :data:`MAX_SUGGESTIONS`; deterministic (ties keep the sorted order);
* :func:`unknown_skill_message`: ``Unknown skill 'skil-0001'. Did you mean:
  skill-0001? (1952 skills available; `skillpath list`)``; with no near name
  the names themselves when there are at most :data:`LIST_ALL_UP_TO`, else
  only their count;
* :func:`conditional_message`: for a skill that exists but waits for a
  matching file (``paths`` frontmatter);
* :func:`by_folder` and :func:`folder_matches`: a skill's folder name is an
  alias for lookups when its frontmatter ``name`` differs (``Ahrefs
  Automation`` in ``ahrefs-automation/``); the catalog keeps the name. An
  alias two skills share resolves to neither; both are offered first.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from skillpath.model import by_folder, by_qualified

if TYPE_CHECKING:
    from skillpath.model import Skill

__all__ = [
    "LIST_ALL_UP_TO",
    "MAX_SUGGESTIONS",
    "by_folder",
    "by_qualified",
    "conditional_message",
    "echo_name",
    "folder_matches",
    "near_names",
    "unknown_skill_message",
]

#: At most this many near names are offered.
MAX_SUGGESTIONS = 3
#: With no near name, catalogs up to this size are listed in full.
LIST_ALL_UP_TO = 10
_MAX_ECHO = 80
_MAX_PATTERNS = 5


def echo_name(text: str) -> str:
    """``repr`` of ``text``, cut to 80 characters (for echoing user input in errors)."""
    return repr(text if len(text) <= _MAX_ECHO else text[:_MAX_ECHO] + "…")


def folder_matches(name: str, skills: Iterable[Skill]) -> list[str]:
    """Names of the skills whose folder is called exactly ``name`` but whose own
    name differs, sorted."""
    return sorted(
        s.name
        for s in skills
        if s.base_dir is not None and s.base_dir.name == name and s.name != name
    )


def near_names(
    name: str, names: Iterable[str], *, limit: int = MAX_SUGGESTIONS, first: Iterable[str] = ()
) -> tuple[str, ...]:
    """The names closest to ``name`` (``name`` itself excluded), best first.

    ``first`` (exact folder matches, :func:`folder_matches`) lead the list.
    """
    pool = sorted(set(names) - {name})
    folded = name.casefold()
    near = [n for n in first if n != name]
    near += [n for n in pool if n.casefold() == folded and n not in near]
    import difflib  # here: start-up imports this module, only errors need difflib

    for n in difflib.get_close_matches(name, pool, n=limit, cutoff=0.6):
        if n not in near:
            near.append(n)
    return tuple(near[:limit])


def unknown_skill_message(name: str, names: Iterable[str], *, first: Iterable[str] = ()) -> str:
    """The one-line error for ``name``, which is not in ``names`` (see the module docstring).

    ``first``: names to offer before any other (exact folder matches).
    """
    pool = sorted(set(names), key=lambda n: (n.casefold(), n))
    shown = echo_name(name)
    if not pool:
        return f"Unknown skill {shown}: no skills are available"
    count = f"{len(pool)} skill{'s' if len(pool) != 1 else ''} available; `skillpath list`"
    near = near_names(name, pool, first=first)
    if near:
        return f"Unknown skill {shown}. Did you mean: {', '.join(near)}? ({count})"
    if len(pool) <= LIST_ALL_UP_TO:
        return f"Unknown skill {shown}. Available skills: {', '.join(pool)}"
    return f"Unknown skill {shown}. ({count})"


def conditional_message(skill: Skill) -> str:
    """The error for a conditional skill that no touched file has activated yet."""
    patterns = list(skill.frontmatter.paths)
    shown = ", ".join(patterns[:_MAX_PATTERNS]) + (", …" if len(patterns) > _MAX_PATTERNS else "")
    return (
        f"Skill {echo_name(skill.name)} is conditional (paths: {shown}) and not active yet; "
        "it activates when a matching file is touched"
    )
