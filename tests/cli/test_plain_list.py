"""A plain ``skillpath list`` runs without click and writes what the click command writes.

The launcher calls the body of ``list`` directly for ``skillpath list`` and
``skillpath list --json`` (see :func:`skillpath.cache.launch._command`). Each case is
run through the console script (that path) and through the click group
(``python -c "from skillpath.cli import main; main()"``), in new processes, and
stdout, stderr and the exit status are compared; replayed runs too.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from skillpath.cache import launch as _launch

from ..conftest import Env
from ..perf.test_cold_list import _write_corpus

SKILLPATH_EXE = Path(sys.executable).with_name("skillpath")
CLICK = [sys.executable, "-c", "import sys; from skillpath.cli import main; main()"]


def _run(argv: list[str], env: Env, **extra: str) -> tuple[bytes, bytes, int]:
    proc = subprocess.run(
        argv, cwd=env.project, env={**env.env, **extra}, capture_output=True, timeout=300
    )
    return proc.stdout, proc.stderr, proc.returncode


@pytest.mark.parametrize("args", [["list"], ["list", "--json"]])
@pytest.mark.parametrize("snapshot", ["off", "on"])
def test_plain_list_writes_what_the_click_command_writes(
    isolated_env: Env, args: list[str], snapshot: str
) -> None:
    _write_corpus(isolated_env, 12)  # problems, shadowed and conditional skills, lock files
    extra = {"SKILLPATH_NO_SNAPSHOT": "1"} if snapshot == "off" else {}
    reference = _run([*CLICK, *args], isolated_env, SKILLPATH_NO_SNAPSHOT="1")
    assert reference[2] == 0 and reference[0]
    assert _run([str(SKILLPATH_EXE), *args], isolated_env, **extra) == reference
    # again: from the index, and (snapshot on) replayed
    assert _run([str(SKILLPATH_EXE), *args], isolated_env, **extra) == reference


def test_plain_list_of_an_empty_project(isolated_env: Env) -> None:
    for args in (["list"], ["list", "--json"]):
        reference = _run([*CLICK, *args], isolated_env, SKILLPATH_NO_SNAPSHOT="1")
        plain = _run([str(SKILLPATH_EXE), *args], isolated_env, SKILLPATH_NO_SNAPSHOT="1")
        assert plain == reference


def test_only_plain_command_lines_skip_click(monkeypatch: pytest.MonkeyPatch) -> None:
    from skillpath.cli import main

    monkeypatch.delenv("_SKILLPATH_COMPLETE", raising=False)
    for argv in (["list", "--all"], ["list", "--json", "--json"], ["show"], [], ["--help"]):
        assert _launch._command(argv) is main, argv
    monkeypatch.setattr("skillpath.cli._common.plain_streams", lambda: True)
    assert _launch._command(["list"]) is not main
    monkeypatch.setenv("_SKILLPATH_COMPLETE", "bash_complete")
    assert _launch._command(["list"]) is main  # shell completion is click's


def test_a_skillpath_error_is_reported_by_the_click_command(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], isolated_env: Env
) -> None:
    from skillpath.cli import _listrun, listing  # both imported before either is patched
    from skillpath.errors import PluginError

    def broken(*args: object) -> None:
        raise PluginError("some-plugin", "it broke")

    monkeypatch.setattr(_listrun, "run_list", broken)
    monkeypatch.setattr(listing, "run_list", broken)
    monkeypatch.chdir(isolated_env.project)
    monkeypatch.setattr(sys, "argv", ["skillpath", "list", "--json"])
    with pytest.raises(SystemExit) as plain:
        _launch._plain_list(["list", "--json"])
    out_plain = capfd.readouterr()
    from skillpath.cli import main

    with pytest.raises(SystemExit) as clicked:
        main(["list", "--json"])
    out_click = capfd.readouterr()
    assert plain.value.code == clicked.value.code == 1
    assert (out_plain.out, out_plain.err) == (out_click.out, out_click.err)
    assert '"code": "plugin-error"' in out_plain.out


@pytest.mark.skipif(not hasattr(os, "pipe"), reason="needs pipes")
def test_a_reader_that_goes_away_ends_the_run_quietly(isolated_env: Env) -> None:
    _write_corpus(isolated_env, 80)
    results = []
    for argv in ([str(SKILLPATH_EXE), "list", "--json"], [*CLICK, "list", "--json"]):
        proc = subprocess.Popen(
            argv,
            cwd=isolated_env.project,
            env={**isolated_env.env, "SKILLPATH_NO_SNAPSHOT": "1", "SKILLPATH_NO_INDEX": "1"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.read(10)
        proc.stdout.close()  # before the command is done writing
        err = proc.stderr.read()
        results.append((proc.wait(timeout=300), err))
    assert results[0] == results[1]
    assert b"Traceback" not in results[0][1]
