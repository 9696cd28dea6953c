"""The tutorials run as written, in a fresh environment built from this checkout.

Each page below is followed as a new user would: its shell blocks run in order, exactly
as written, by ``bash -euo pipefail``, each in a fresh temporary directory of the page's
own, and each must exit 0 (or the status its marker names). Unlike
``test_code_blocks.py`` (the workspace's environment, one block at a time), nothing of
the workspace is on ``PATH`` or ``PYTHONPATH``:

- the page runs in a fresh ``python -m venv``, first on ``PATH`` (``python3``, ``pip``,
  ``skillpath``); for the pages that assume an installed skillpath, ``skillpath`` and
  ``uv`` are installed in it first, as the getting-started page says;
- ``pip install skillpath`` (and every ``pip``/``uv pip`` install) finds this checkout's
  wheels, built once per session (``uv build --all-packages --wheel``, the example
  plugins left out, as they are never published), before the package index, whose
  third-party packages it still uses; the installed ``skillpath-*`` distributions are
  checked to be those wheels;
- the user's home is private and holds a clone of this repository at
  ``~/src/skillpath`` (a copy of the files git knows, shared by the session): a block
  marked ``where=clone`` runs there, as the README's quick start does.

The markers of ``test_code_blocks.py`` keep their meaning (``project``, ``continue``,
``cwd``, ``exit``; a ``fragment`` runs here too, unless marked ``tutorial-skip=WHY``), and
three more say what a reader does with a block:

``save=PATH``
    the reader writes the block to ``PATH`` (``~`` is the home; relative to where the
    block's page stands);
``output``
    (a ``text`` block right after a shell block) what that block prints: its stdout must
    match, runs of blanks comparing equal, ``…`` standing for any text within a line and
    a line of ``…`` for any lines;
``files``
    (a ``text`` block) a file tree, its first line the folder: exactly these files exist.

Marked ``tutorials`` (``.ci/run`` runs the whole suite, so it runs there). Most of its
time is the README's quick start (``uv run`` copying the workspace's packages, about
1 GB, into the clone's ``.venv``) and the build, which run side by side once a session.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import venv
import zipfile
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

from .test_code_blocks import Block, blocks_of

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
#: the pages followed, and whether the page assumes an installed skillpath
PAGES = {
    "README.md": False,
    "README.pypi.md": False,
    "docs/index.md": True,
    **{str(p.relative_to(REPO)): True for p in sorted((DOCS / "tutorials").glob("*.md"))},
    "docs/share-with-every-agent.md": True,
}
TIMEOUT = 900
pytestmark = pytest.mark.tutorials


def _run(args: list[str | Path], **kwargs: object) -> subprocess.CompletedProcess[str]:
    proc: subprocess.CompletedProcess[str] = subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        **kwargs,  # type: ignore[arg-type]
    )
    return proc


# -- once per session: the wheels and the clone --------------------------------------


def _plugin_distributions() -> set[str]:
    """The example plugins' distribution names (never published)."""
    names = set()
    for pyproject in (REPO / "plugins").glob("*/pyproject.toml"):
        names.add(_norm(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["name"]))
    return names


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def quick_start() -> Block:
    """The README's first quick-start command (install, and list the demo project)."""
    first = next(b for b in blocks_of(REPO / "README.md") if b.options.get("where") == "clone")
    assert "uv run skillpath list" in first.text, first
    return first


@attrs.frozen
class Machine:
    """What every page starts from: this checkout's wheels, and a clone of it."""

    wheels: Path
    clone: Path


@pytest.fixture(scope="session")
def machine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Machine]:
    """This checkout's wheels, as the package index will hold them, built while a clone
    of this repository (the files git knows, uncommitted changes included) gets the
    README's quick start, as it has for a reader of the tutorials."""
    dist = tmp_path_factory.mktemp("wheels")
    build = subprocess.Popen(
        [sys.executable, "-m", "uv", "build", "-q", "--all-packages", "--wheel", "-o", dist],
        cwd=REPO,
        env={**os.environ, "UV_NO_PROGRESS": "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        root = tmp_path_factory.mktemp("src") / "skillpath"
        listed = _run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=REPO)
        assert listed.returncode == 0, listed.stderr
        for name in filter(None, listed.stdout.split("\0")):
            source = REPO / name
            if not source.is_symlink() and not source.is_file():
                continue  # deleted in the work tree
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_symlink():
                target.symlink_to(os.readlink(source))
            else:
                shutil.copy2(source, target)
        _home, env = fresh_env(tmp_path_factory.mktemp("machine"), None, root)
        proc = _run(["bash", "-euo", "pipefail", "-c", quick_start().text], cwd=root, env=env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        _, errors = build.communicate(timeout=TIMEOUT)
    finally:
        if build.poll() is None:
            build.kill()
    assert build.returncode == 0, errors
    private = _plugin_distributions()
    for wheel in dist.glob("*.whl"):
        if _norm(wheel.name.split("-")[0]) in private:
            wheel.unlink()
    assert (dist / "skillpath-0.1.0-py3-none-any.whl").is_file(), sorted(dist.iterdir())
    yield Machine(dist, root)
    shutil.rmtree(root / ".venv", ignore_errors=True)  # the quick start's, 1 GB


# -- one page --------------------------------------------------------------------------


@attrs.define
class Reader:
    """A user following one page: a home, an environment, where they stand."""

    tmp: Path
    home: Path
    clone: Path
    env: dict[str, str]
    project: Path | None = None
    projects: int = 0
    cwd: Path | None = None
    last: subprocess.CompletedProcess[str] | None = None

    def place(self, block: Block) -> Path:
        """The folder ``block`` runs in (or its relative ``save`` path starts from)."""
        if block.options.get("where") == "clone":
            base = self.home / "src" / "skillpath"
        else:
            if "continue" not in block.options or self.project is None:
                self.projects += 1
                self.project = self.tmp / f"project-{self.projects}"
                if block.options.get("project", "demo") == "demo":
                    shutil.copytree(REPO / "examples" / "demo", self.project, symlinks=True)
                else:
                    self.project.mkdir()
                (self.project / ".git").mkdir(exist_ok=True)
            base = self.project
        return base / block.options.get("cwd", ".")

    def shell(self, block: Block) -> None:
        cwd = self.place(block)
        proc = _run(
            ["bash", "--norc", "--noprofile", "-euo", "pipefail", "-c", block.text],
            cwd=cwd,
            env=self.env,
        )
        expected = int(block.options.get("exit", "0"))
        assert proc.returncode == expected, f"{block.id}:\n{proc.stdout}\n{proc.stderr}"
        assert "Traceback" not in proc.stderr, f"{block.id}:\n{proc.stderr}"
        self.last = proc
        self.cwd = cwd

    def save(self, block: Block) -> None:
        raw = block.options["save"]
        path = self.home / raw[2:] if raw.startswith("~/") else self.place(block) / raw
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(block.text, encoding="utf-8")


def output_pattern(shown: str) -> re.Pattern[str]:
    """``shown`` as a pattern over normalised output (see the module docstring)."""
    parts = []
    for line in _normalise(shown).splitlines():
        if line == "…":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append("[^\n]*".join(re.escape(p) for p in line.split("…")) + "\n")
    return re.compile("".join(parts))


def _normalise(text: str) -> str:
    lines = [re.sub(r"[ \t]+", " ", line).strip() for line in text.splitlines()]
    return "\n".join(lines).strip("\n") + "\n"


def check_output(block: Block, reader: Reader) -> None:
    assert reader.last is not None, f"{block.id}: output of no command"
    actual = _normalise(reader.last.stdout)
    assert output_pattern(block.text).fullmatch(actual), (
        f"{block.id}: the page shows\n{block.text}\nthe command printed\n{reader.last.stdout}"
    )


def check_files(block: Block, reader: Reader) -> None:
    first, *rest = block.text.strip("\n").splitlines()
    assert reader.cwd is not None, f"{block.id}: a tree of no folder"
    root = reader.cwd / first.strip().rstrip("/")
    shown = {line.strip() for line in rest if line.strip()}
    found = {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}
    assert found == shown, f"{block.id}: the page shows {sorted(shown)}, made {sorted(found)}"


def fresh_env(tmp: Path, wheels: Path | None, clone: Path) -> tuple[Path, dict[str, str]]:
    """A home holding the clone, a fresh venv, and the environment of a user in it."""
    home = tmp / "home"
    (home / "src").mkdir(parents=True)
    (home / "src" / "skillpath").symlink_to(clone)
    venv.EnvBuilder(with_pip=True).create(tmp / "venv")
    bindir = tmp / "venv" / "bin"
    ours = {str(Path(sys.executable).parent), os.environ.get("VIRTUAL_ENV", "") + "/bin"}
    path = [
        str(bindir),
        *(p for p in os.environ.get("PATH", "").split(os.pathsep) if p not in ours),
    ]
    links = " ".join(filter(None, [str(wheels or ""), os.environ.get("PIP_FIND_LINKS", "")]))
    keep = ("LANG", "TERM", "PIP_CERT", "PIP_DEFAULT_TIMEOUT", "SSL_CERT_FILE", "UV_CACHE_DIR")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update(
        {
            "HOME": str(home),
            "PATH": os.pathsep.join(path),
            "LANG": env.get("LANG", "C.UTF-8"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            # the package caches every test environment shares (the real home's)
            "PIP_CACHE_DIR": os.environ.get("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip")),
            "SKILLPATH_CLAUDE_POLICY_DIR": str(tmp / "etc-claude"),
            "SKILLPATH_CODEX_ADMIN_DIR": str(tmp / "etc-codex"),
            "PIP_FIND_LINKS": links,
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "UV_NO_PROGRESS": "1",
            # copies, not hard links into the shared cache (a new link changes the ctime of
            # every environment's copy of that file, which their change detectors observe)
            "UV_LINK_MODE": "copy",
            "GIT_CONFIG_NOSYSTEM": "1",
        }
    )
    env.setdefault("UV_CACHE_DIR", str(Path.home() / ".cache" / "uv"))
    if wheels is not None:
        env["UV_FIND_LINKS"] = str(wheels)
    return home, env


def installed_from(wheels: Path, site: Path) -> tuple[list[str], list[str]]:
    """The distributions in ``site`` that were built here, and those of them whose files
    are not the wheel's."""
    checked, wrong = [], []
    for wheel in wheels.glob("*.whl"):
        name, version = wheel.name.split("-")[:2]
        info = site / f"{name}-{version}.dist-info"
        if not info.is_dir():
            continue
        checked.append(name)
        with zipfile.ZipFile(wheel) as zf:
            record = zf.read(f"{info.name}/RECORD").decode("utf-8").splitlines()
        installed = set((info / "RECORD").read_text(encoding="utf-8").splitlines())
        own = f"{info.name}/RECORD"
        missing = [r for r in record if not r.startswith(own) and r not in installed]
        if missing:
            wrong.append(f"{info.name}: {missing[:3]}")
    return checked, wrong


@pytest.mark.parametrize("page", list(PAGES))
def test_the_page_runs_as_written(page: str, tmp_path: Path, machine: Machine) -> None:
    wheels = machine.wheels
    home, env = fresh_env(tmp_path, wheels, machine.clone)
    reader = Reader(tmp_path, home, machine.clone, env)
    if PAGES[page]:  # the environment a reader of the page has (uv: it is quicker)
        uv = [sys.executable, "-m", "uv", "pip", "install", "-q", "--python"]
        proc = _run([*uv, tmp_path / "venv" / "bin" / "python", "skillpath", "uv"], env=env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    ran = 0
    for block in blocks_of(REPO / page):
        if "tutorial-skip" in block.options:
            assert block.options["tutorial-skip"], f"{block.id}: say why it is skipped"
            continue
        if "save" in block.options:
            reader.save(block)
        elif block.language in ("sh", "bash"):
            reader.shell(block)
            ran += 1
        elif "output" in block.options:
            check_output(block, reader)
        elif "files" in block.options:
            check_files(block, reader)
    assert ran, f"{page}: no shell block ran"
    (site,) = (tmp_path / "venv" / "lib").glob("python*/site-packages")
    checked, wrong = installed_from(wheels, site)
    assert wrong == [], "installed from elsewhere than this checkout"
    assert "skillpath_core" in checked or not PAGES[page], checked


def test_every_tutorial_is_followed() -> None:
    tutorials = {str(p.relative_to(REPO)) for p in (DOCS / "tutorials").glob("*.md")}
    assert tutorials and tutorials <= set(PAGES)


@pytest.mark.parametrize(
    ("shown", "printed", "ok"),
    [
        ("a  b\n", "a b\n", True),
        ("…\nteam loaded 60 …\n…\n", "x\nteam   loaded   60  skillpath-team 0.1.0\ny\n", True),
        ("team loaded\n", "x\nteam loaded\n", False),
        ("ends …footer\n", "ends with the footer\n", True),
        ("ends …footer\n", "ends with the\nfooter\n", False),
    ],
)
def test_shown_output_matching(shown: str, printed: str, ok: bool) -> None:
    assert bool(output_pattern(shown).fullmatch(_normalise(printed))) is ok


def test_ci_runs_the_readme_quick_start_as_written() -> None:
    """The README's quick-start commands are the lines ``.ci/run`` runs (its first two
    steps on a fresh machine), so the two never drift apart."""
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    quick = [
        b for b in blocks_of(REPO / "README.md") if "quick start" in b.options.get("fragment", "")
    ]
    assert len(quick) == 2
    for block in quick:
        assert block.text.strip() in ci, block.id
