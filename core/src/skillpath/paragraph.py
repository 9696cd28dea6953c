"""The description a skill's body lends it: the rule a description must meet
(:func:`has_text`) and the fallback when it is missing (:func:`first_paragraph`)."""

from __future__ import annotations

from skillpath._lazyre import lazy_pattern

__all__ = ["first_paragraph", "has_text"]

_RULE_OR_UNDERLINE = lazy_pattern(r"(?:[-*_]\s*){3,}|=+|-+")


def has_text(value: str) -> bool:
    """Whether ``value`` holds a letter or digit (a description of only
    punctuation, ``"..."`` or ``"-"``, counts as missing)."""
    return any(ch.isalnum() for ch in value)


def first_paragraph(body: str | None) -> str:
    """The description fallback: the first prose paragraph of ``body``.

    Never a Markdown rule (``---``), a heading (``#`` or underlined), a code
    fence and what it holds, an HTML comment, or a table; a paragraph of only
    punctuation is passed over. Cut to 250 characters at a word boundary.
    """
    if not body:
        return ""
    para: list[str] = []
    fence = ""
    comment = False
    for line in body.splitlines():
        text = line.strip()
        if fence:
            if text.startswith(fence):
                fence = ""
            continue
        if comment:
            comment = "-->" not in text
            continue
        if para and _RULE_OR_UNDERLINE.fullmatch(text) and not text.startswith(("*", "_")):
            para = []  # the paragraph was a heading (setext underline)
            continue
        prose = text and not text.startswith(("```", "~~~", "<!--", "#", "|"))
        if prose and not _RULE_OR_UNDERLINE.fullmatch(text):
            para.append(text)
            continue
        found = _paragraph_text(para)
        if found:
            return found
        para = []
        if text.startswith(("```", "~~~")):
            fence = text[:3]
        elif text.startswith("<!--"):
            comment = "-->" not in text[4:]
    return _paragraph_text(para)


def _paragraph_text(lines: list[str]) -> str:
    text = " ".join(lines)
    if not has_text(text):
        return ""
    if len(text) > 250:
        text = text[:250].rsplit(" ", 1)[0] + "…"
    return text
