"""Options and output helpers shared by every subcommand."""

from __future__ import annotations

import os
import sys
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from skillpath.errors import SkillpathError
from skillpath.textguard import escape_controls

if TYPE_CHECKING:
    import json

    import click

    from skillpath.model import Diagnostic

F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "check_cwd",
    "color_enabled",
    "common_options",
    "diagnostic_line",
    "display_width",
    "dumps_json",
    "echo",
    "echo_diagnostics",
    "echo_table",
    "emit_json",
    "error_code",
    "error_object",
    "fail",
    "is_terminal",
    "paint",
    "quiet",
    "refresh_option",
    "table",
    "terminal_safe",
    "terminal_width",
    "wants_json",
    "wrap",
]


def common_options(fn: F) -> F:
    """Add ``--cwd`` and ``--json`` and turn skillpath errors into a one-line message
    (and, with ``--json``, a JSON error object on stdout; see :func:`fail`)."""
    import click

    @click.option(
        "--cwd",
        type=click.Path(path_type=Path),
        default=None,
        help="Project directory to look from (default: the current directory).",
    )
    @click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
    @click.option(
        "--quiet",
        "-q",
        is_flag=True,
        expose_value=False,
        callback=_ask_quiet,
        help="No warnings, notes or progress on stderr (errors are still shown).",
    )
    @click.option(
        "--color",
        type=click.Choice(["auto", "always", "never"]),
        default=None,
        expose_value=False,
        callback=_ask_color,
        help="Colour on a terminal (auto, the default; NO_COLOR turns it off), always or never.",
    )
    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        check_cwd(kwargs.get("cwd"))
        try:
            return fn(*args, **kwargs)
        except SkillpathError as exc:
            fail(str(exc), error=error_code(exc))

    return wrapper  # type: ignore[return-value]


#: Set by ``--quiet``: diagnostics below ``error`` and progress lines are not printed.
QUIET_VAR = "SKILLPATH_QUIET"
#: Set by ``--color``: ``auto`` (colour on a terminal unless ``NO_COLOR``), ``always``
#: or ``never``.
COLOR_VAR = "SKILLPATH_COLOR"


def _set_for_the_command(ctx: click.Context, name: str, value: str) -> None:
    """Set ``os.environ[name]`` while the command runs (what it loads reads it there),
    and put back what was there when it ends (a process may run several commands)."""
    before = os.environ.get(name)
    os.environ[name] = value

    def restore() -> None:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before

    ctx.call_on_close(restore)


def _ask_quiet(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    if value:
        _set_for_the_command(ctx, QUIET_VAR, "1")
    return value


def _ask_color(ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None:
        _set_for_the_command(ctx, COLOR_VAR, value)
    return value


def quiet() -> bool:
    """Whether ``--quiet`` (``SKILLPATH_QUIET=1``) asked for errors only on stderr."""
    return os.environ.get(QUIET_VAR, "").strip() not in ("", "0")


def color_enabled(err: bool = False) -> bool:
    """Whether standard output (``err``: standard error) gets colour.

    ``--color always``/``never`` (``SKILLPATH_COLOR``) decide; otherwise
    (``auto``) colour goes to a terminal only, and never when ``NO_COLOR`` is
    set to anything but the empty string (https://no-color.org) or ``TERM`` is
    ``dumb``. JSON output is never coloured.
    """
    mode = os.environ.get(COLOR_VAR, "auto").strip().lower()
    if mode == "always":
        return True
    if mode == "never":
        return False
    if os.environ.get("NO_COLOR", "") != "" or os.environ.get("TERM") == "dumb":
        return False
    return is_terminal(err)


#: SGR codes of the styles used.
_STYLES = {"error": "1;31", "warning": "33", "info": "2", "bold": "1"}


def paint(text: str, style: str, err: bool = False) -> str:
    """``text`` in ``style`` (``error``, ``warning``, ``info``, ``bold``) when
    :func:`color_enabled`; as it is otherwise. ``text`` must already be safe
    for a terminal: it is written without :func:`echo`'s escaping."""
    if not text or not color_enabled(err):
        return text
    return f"\x1b[{_STYLES[style]}m{text}\x1b[0m"


def echo_table(text: str) -> None:
    """Print a :func:`table` on stdout, its header line in bold where colour is on."""
    if is_terminal():
        text = escape_controls(text)
    head, sep, rest = text.partition("\n")
    _echo(paint(head, "bold") + sep + rest)


def _ask_refresh(_ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    if value:
        os.environ["SKILLPATH_MCP_REFRESH"] = "1"
    return value


def refresh_option(fn: F) -> F:
    """``--refresh``: list MCP servers again instead of reusing their cached listings
    (sets ``SKILLPATH_MCP_REFRESH=1`` for the load)."""
    import click

    return click.option(
        "--refresh",
        is_flag=True,
        expose_value=False,
        callback=_ask_refresh,
        help="List MCP servers again instead of reusing their cached listings.",
    )(fn)


def error_code(exc: BaseException) -> str:
    """The ``code`` of the JSON error object for a skillpath exception."""
    from skillpath.errors import PluginError, PromptError, ResolveError

    for kind, code in ((ResolveError, "resolve-error"), (PromptError, "prompt-error")):
        if isinstance(exc, kind):
            return code
    return "plugin-error" if isinstance(exc, PluginError) else "error"


def check_cwd(cwd: Path | None) -> None:
    """Exit 1 with the one-line error when ``--cwd`` is given and is not a directory."""
    if cwd is not None and not cwd.is_dir():
        fail(
            f"--cwd {cwd}: {'not a directory' if cwd.exists() else 'no such directory'}",
            error="bad-cwd",
            path=cwd,
        )


#: ``click.Context.meta`` key: a JSON document was already written on stdout.
_EMITTED = "skillpath.json-emitted"


def wants_json(ctx: click.Context | None = None) -> bool:
    """Whether the running command was given ``--json``."""
    ctx = ctx if ctx is not None else _click_context()
    while ctx is not None:
        if ctx.params.get("as_json"):
            return True
        ctx = ctx.parent
    return False


def error_object(code: str, message: str, path: Path | str | None = None) -> dict[str, Any]:
    """The JSON error object printed on stdout by a failing command given ``--json``."""
    return {
        "error": {
            "code": code,
            "message": message,
            "path": str(path) if path is not None else None,
        }
    }


def fail(
    message: str, code: int = 1, *, error: str = "error", path: Path | str | None = None
) -> NoReturn:
    """Print ``skillpath: error: <message>`` on stderr and exit with ``code``.

    With ``--json``, stdout also gets ``{"error": {"code": error, "message":
    message, "path": path}}`` — unless the command already wrote its JSON
    document (``doctor`` and ``validate`` report their findings there), so
    stdout always holds exactly one JSON document. The exit status is the same
    either way.
    """
    ctx = _click_context()
    if wants_json(ctx) and not (ctx is not None and ctx.find_root().meta.get(_EMITTED)):
        emit_json(error_object(error, message, path))
    line = f"skillpath: error: {message}"
    if is_terminal(err=True):
        line = escape_controls(line)
    _echo(paint("skillpath: error:", "error", True) + line[len("skillpath: error:") :], err=True)
    sys.exit(code)


def emit_json(data: Any) -> None:
    """Write ``data`` as stable, indented, key-sorted JSON."""
    ctx = _click_context()
    if ctx is not None:
        ctx.find_root().meta[_EMITTED] = True
    # JSON text never holds a raw ESC (the encoder writes it as \u001b), so
    # click's ANSI stripping (a regex pass over megabytes for a large catalog)
    # has nothing to strip: color=True skips it, the bytes are the same. C1
    # controls and bidi characters stay raw (ensure_ascii=False): on a terminal
    # they are written as \uXXXX escapes, the same JSON data
    tty = is_terminal()
    # the pieces are written in batches of about 64 KB: one write (and one flush,
    # which every echo does) per piece would be a system call per skill when the
    # list is not all flat mappings (one skill with an origin is enough)
    batch: list[str] = []
    size = 0
    for part in _iter_json(data, ""):
        if tty:
            part = escape_controls(part, style="json")
        batch.append(part)
        size += len(part)
        if size >= _BATCH:
            _echo("".join(batch), nl=False)
            batch = []
            size = 0
    if batch:
        _echo("".join(batch), nl=False)
    _echo("")


#: About how many characters of JSON :func:`emit_json` writes at a time.
_BATCH = 1 << 16


_SCALARS = (str, int, float, bool, type(None))
_SCALAR_TYPES = frozenset(_SCALARS)
_FLAT: dict[str, json.JSONEncoder] = {}
_CHUNK = 512


def dumps_json(data: Any) -> str:
    """``json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)``, byte for byte.

    The standard library switches to its pure-Python encoder as soon as
    ``indent`` is set, which dominates ``list --json`` for thousands of skills.
    Mappings whose values are all scalars (every skill, shadowed entry and
    diagnostic) are encoded by the C encoder with the indentation folded into
    the item separator; everything else goes through :func:`json.dumps`.
    :func:`emit_json` writes the same text piece by piece.
    """
    return "".join(_iter_json(data, ""))


def _flat_encoder(pad: str) -> json.JSONEncoder:
    encoder = _FLAT.get(pad)
    if encoder is None:
        import json  # not at start-up: a plain list prints no JSON

        encoder = _FLAT[pad] = json.JSONEncoder(
            sort_keys=True, ensure_ascii=False, separators=(",\n" + pad, ": ")
        )
    return encoder


class JSONItems:
    """Items of a JSON list that :func:`dumps_json` writes with ``encode``.

    ``encode(value)`` gives the JSON text of one of ``values`` written at
    ``pad``, the indentation of the list's items (four spaces for a list at
    the top level of a mapping); it must be exactly what :func:`dumps_json`
    would write for that item there. The texts are made :data:`_CHUNK` at a
    time, as they are written. Made by writers that know their values' shape
    (:func:`skillpath.cli._listrun.skill_entries`) and are tested byte for
    byte against it.
    """

    __slots__ = ("encode", "pad", "values")

    def __init__(self, values: Sequence[Any], pad: str, encode: Callable[[Any], str]) -> None:
        """``values``, each written as ``encode(value)`` at indentation ``pad``."""
        if not values:
            raise ValueError("no items")
        self.values = values
        self.pad = pad
        self.encode = encode


def _iter_json(obj: Any, pad: str) -> Iterator[str]:
    import json

    inner = pad + "  "
    if isinstance(obj, dict) and obj:
        if _SCALAR_TYPES.issuperset(map(type, obj.values())):
            flat = _flat_encoder(inner).encode(obj)
            yield "{\n" + inner + flat[1:-1] + "\n" + pad + "}"
            return
        if not all(isinstance(k, str) for k in obj):
            yield _indented(obj, pad)
            return
        sep = "{\n"
        for key in sorted(obj):
            yield sep + inner + json.dumps(key, ensure_ascii=False) + ": "
            yield from _iter_json(obj[key], inner)
            sep = ",\n"
        yield "\n" + pad + "}"
    elif isinstance(obj, list) and obj:
        # runs of flat mappings (every skill, shadowed entry and diagnostic; a skill
        # with an origin is not flat and breaks a run): the C encoder does up to
        # _CHUNK of them at a time, the item separator carrying the innermost
        # indentation; then the breaks between items are put in (a raw newline
        # never occurs inside an encoded string, so "},\n<pad>{" only occurs
        # between two items). Anything else is written item by item.
        deep = inner + "  "
        encoder = _flat_encoder(deep)
        between = "},\n" + deep + "{"
        fixed = "\n" + inner + "},\n" + inner + "{\n" + deep
        scalars = _SCALAR_TYPES
        sep = "[\n"
        i = 0
        n = len(obj)
        while i < n:
            item = obj[i]
            if type(item) is JSONItems:
                if item.pad != inner:
                    raise ValueError(
                        f"JSON text made for indentation {item.pad!r} written at {inner!r}"
                    )
                values, encode = item.values, item.encode
                joint = ",\n" + inner
                for k in range(0, len(values), _CHUNK):
                    yield sep + inner + joint.join(map(encode, values[k : k + _CHUNK]))
                    sep = ",\n"
                i += 1
            elif type(item) is dict and item and scalars.issuperset(map(type, item.values())):
                j = i + 1
                limit = min(n, i + _CHUNK)
                while j < limit:
                    nxt = obj[j]
                    if not (
                        type(nxt) is dict and nxt and scalars.issuperset(map(type, nxt.values()))
                    ):
                        break
                    j += 1
                text = encoder.encode(obj[i:j])[2:-2].replace(between, fixed)
                yield sep + inner + "{\n" + deep + text + "\n" + inner + "}"
                i = j
            else:
                yield sep + inner
                yield from _iter_json(item, inner)
                i += 1
            sep = ",\n"
        yield "\n" + pad + "]"
    elif type(obj) is JSONItems:
        raise TypeError("JSONItems stand only in a list")
    else:
        yield _indented(obj, pad)


def _indented(obj: Any, pad: str) -> str:
    import json

    text = json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False)
    return text.replace("\n", "\n" + pad) if pad and "\n" in text else text


def diagnostic_line(d: Diagnostic, location: str | None = None) -> str:
    """``level: path:line: message [code]``, safe for a terminal.

    ``location`` replaces the diagnostic's own ``path:line`` (``doctor`` shows
    paths relative to the project).
    """
    loc = d.location() if location is None else location
    return terminal_safe(f"{d.level}: {loc + ': ' if loc else ''}{d.message} [{d.code}]")


def echo_diagnostics(
    diagnostics: Iterable[Diagnostic], show: Callable[[Diagnostic], bool] | None = None
) -> None:
    """Print ``diagnostics`` on stderr, one line each: those ``show`` accepts
    (default: every one that is not ``info``)."""
    keep = show if show is not None else _not_info
    hush = quiet()
    for d in diagnostics:
        if keep(d) and not (hush and d.level != "error"):
            line = diagnostic_line(d)
            if is_terminal(err=True):
                line = escape_controls(line)
            level, colon, rest = line.partition(":")
            style = d.level if d.level in _STYLES else "info"
            _echo(paint(level, style, True) + colon + rest, err=True)


def _not_info(d: Diagnostic) -> bool:
    return d.level != "info"


def terminal_safe(text: str) -> str:
    """``text`` with control, bidi, zero-width and other invisible characters escaped.

    Skill names, descriptions and paths come from strangers; printed raw they
    could move the cursor, recolour or retitle the terminal (ANSI escapes),
    reorder what is shown (bidi overrides) or hide text. Each such character is
    shown as ``\\xNN``/``\\uNNNN`` instead; tabs are kept. For one-line fields,
    on every output; :func:`echo` covers the rest on a terminal.
    """
    return escape_controls(text, keep="\t", invisible=True)


def is_terminal(err: bool = False) -> bool:
    """Whether standard output (``err``: standard error) is a terminal."""
    stream = sys.stderr if err else sys.stdout
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def echo(text: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Print ``text`` (on stderr with ``err``): the printer every command uses.

    On a terminal, control sequences are neutralised: ESC, the other C0 and C1
    controls but line feed and tab, bidi controls and line separators are shown
    as ``\\x1b``/``\\uNNNN`` (:func:`~skillpath.textguard.escape_controls`), so
    a skill's text cannot retitle the terminal, write the clipboard (OSC 52),
    move the cursor or hide lines. Piped or redirected output is byte-exact.
    """
    if is_terminal(err):
        text = escape_controls(text)
    _echo(text, err=err, nl=nl)


def _click_context() -> click.Context | None:
    """The running click context; ``None`` outside a click command (and when click
    was never imported: :func:`skillpath.cache.launch.main` runs a plain ``list``
    without it)."""
    if "click" not in sys.modules:
        return None
    import click

    return click.get_current_context(silent=True)


def _echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    """``click.echo(text, err=err, nl=nl, color=True)``; written directly when click
    is not imported, the way click writes text to a standard stream it takes as it
    is (see :func:`plain_streams`): the same bytes."""
    if "click" in sys.modules:
        import click

        click.echo(text, err=err, nl=nl, color=True)
        return
    stream = sys.stderr if err else sys.stdout
    out = text + "\n" if nl else text
    if out:
        stream.write(out)
    stream.flush()


def plain_streams() -> bool:
    """Whether ``click.echo`` would write to ``sys.stdout`` and ``sys.stderr`` as they
    are: text streams whose encoding is not ASCII (click wraps an ASCII one, and
    handles Windows consoles its own way). Only then does :func:`_echo` write
    without click."""
    if sys.platform == "win32":
        return False
    import codecs

    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        if stream is None or not encoding or not hasattr(stream, "buffer"):
            return False
        try:
            if codecs.lookup(encoding).name == "ascii":
                return False
        except LookupError:
            return False
    return True


def _char_width(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: wide (CJK) characters count two,
    combining marks none."""
    if text.isascii():
        return len(text)
    return sum(_char_width(ch) for ch in text)


def terminal_width() -> int:
    """Columns of the terminal (80 when output is not a terminal).

    ``shutil.get_terminal_size((80, 24)).columns`` (``$COLUMNS``, else the size of
    the terminal of ``sys.__stdout__``, else 80), without importing shutil (and the
    bz2, lzma and other modules it imports) for one number.
    """
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            size = os.get_terminal_size(sys.__stdout__.fileno())  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            size = os.terminal_size((80, 24))
        columns = size.columns or 80
    return columns


def _cut(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` columns (no ellipsis)."""
    if display_width(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        w = _char_width(ch)
        if used + w > width:
            break
        out.append(ch)
        used += w
    return "".join(out)


def _clip(text: str, width: int) -> str:
    text = terminal_safe(" ".join(text.split()))
    if display_width(text) <= width:
        return text
    return _cut(text, max(0, width - 1)) + "…"


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - display_width(text))


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    flex: int = -1,
    overflow: str = "clip",
) -> str:
    """A plain-text table; on a terminal, one that fits it.

    On a terminal, column ``flex`` (default: the last) absorbs the width that
    is left; a longer cell is clipped with an ellipsis, or with ``overflow =
    "wrap"`` continued on the lines below (words kept whole, a path broken
    after a ``/``), so nothing is lost. When the other columns alone would
    leave it less than 20 columns, the widest of them are narrowed (and
    clipped) too. Piped or redirected output is never cut: every cell is
    written whole, whatever its width (``list | grep`` finds long names and
    descriptions). Widths are display widths (a CJK character takes two
    columns).
    """
    cols = len(headers)
    flex = flex % cols
    cells = [[terminal_safe(" ".join(c.split())) for c in r] for r in rows]
    widths = [display_width(h) for h in headers]
    for row in cells:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], display_width(cell))
    grid = [list(headers), ["-" * len(h) for h in headers], *cells]
    if not is_terminal():
        return "\n".join(
            "  ".join(
                _pad(c, widths[i]) if i != cols - 1 else c for i, c in enumerate(row)
            ).rstrip()
            for row in grid
        )
    width = terminal_width()
    budget = width - 1 - 2 * (cols - 1) - 20  # what the fixed columns may take
    while sum(w for i, w in enumerate(widths) if i != flex) > budget:
        i = max((j for j in range(cols) if j != flex), key=lambda j: widths[j])
        if widths[i] <= max(8, display_width(headers[i])):
            break
        widths[i] -= 1
    fixed = sum(w for i, w in enumerate(widths) if i != flex) + 2 * (cols - 1)
    widths[flex] = max(10, width - fixed - 1)
    lines = []
    for row in grid:
        parts: list[list[str]] = []
        for i, c in enumerate(row):
            if i == flex and overflow == "wrap" and display_width(c) > widths[i]:
                parts.append(wrap(c, widths[i]))
            else:
                parts.append([_clip(c, widths[i])])
        for k in range(max(len(p) for p in parts)):
            line = [
                (p[k] if k < len(p) else "")
                if i == cols - 1
                else _pad(p[k] if k < len(p) else "", widths[i])
                for i, p in enumerate(parts)
            ]
            lines.append("  ".join(line).rstrip())
    return "\n".join(lines)


def wrap(
    text: str, width: int | None = None, indent: str = "", subsequent: str | None = None
) -> list[str]:
    """``text`` as lines that fit ``width`` columns (default: the terminal's, less one).

    Text that fits is returned as is; otherwise words are kept whole where they
    fit on a line and a word wider than a line (a path) is broken, after a
    ``/`` where possible. Widths are display widths.
    ``indent`` starts the first line, ``subsequent`` (default: ``indent``) the
    others.
    """
    width = (terminal_width() - 1) if width is None else width
    if "\n" not in text and display_width(indent + text) <= width:
        return [indent + text]  # fits: kept exactly as written
    rest = indent if subsequent is None else subsequent
    full = max(20, width - display_width(rest))  # room on a fresh line
    lines: list[str] = []
    line, empty = indent, True
    for word in text.split():
        while word:
            room = width - display_width(line) - (0 if empty else 1)
            size = display_width(word)
            if size <= room:
                line += word if empty else " " + word
                empty = False
                break
            if (size <= full and not empty) or room < 10:
                if empty:  # nothing fits on this line: take what does
                    room = full
                else:
                    lines.append(line)
                    line, empty = rest, True
                    continue
            head = _cut(word, room)
            slash = head.rfind("/")
            if slash >= len(head) // 2:
                head = head[: slash + 1]
            line += head if empty else " " + head
            lines.append(line)
            line, empty = rest, True
            word = word[len(head) :]
    if not empty or not lines:
        lines.append(line)
    return lines
