"""Config diagnostics carry the line of the offending key (``file:line``)."""

from __future__ import annotations

from pathlib import Path

from skillpath.settings import load_settings


def _diags(tmp_path: Path, user: str, project: str | None = None) -> dict[str, int | None]:
    home = tmp_path / "sw-home"
    home.mkdir()
    (home / "config.toml").write_text(user, encoding="utf-8")
    root = None
    if project is not None:
        root = tmp_path / "proj"
        (root / ".skillpath").mkdir(parents=True)
        (root / ".skillpath" / "config.toml").write_text(project, encoding="utf-8")
    _settings, diags = load_settings(home, root, home=tmp_path)
    return {f"{d.code} {d.path.parent.name if d.path else ''}": d.line for d in diags}


def test_each_kind_of_settings_diagnostic_has_the_key_line(tmp_path: Path) -> None:
    user = (
        "# my settings\n"  # 1
        "[skills]\n"  # 2
        "enabled = true\n"  # 3
        "typo_key = 1\n"  # 4
        "\n"  # 5
        "[listing]\n"  # 6
        'budget = "big"\n'  # 7
        "\n"  # 8
        "[weird]\n"  # 9
        "a = 1\n"  # 10
    )
    project = (
        "[skills]\n"  # 1
        'include = ["x"]\n'  # 2
        "\n"  # 3
        "[[mcp.servers]]\n"  # 4
        'name = "x"\n'  # 5
        'command = "y"\n'  # 6
    )
    got = _diags(tmp_path, user, project)
    assert got["settings-unknown-key sw-home"] == 4
    assert got["settings-bad-value sw-home"] == 7
    assert got["settings-unknown-section sw-home"] == 9
    assert got["settings-untrusted .skillpath"] == 4  # the [[mcp.servers]] header


def test_dotted_keys_inline_tables_and_invalid_toml(tmp_path: Path) -> None:
    got = _diags(tmp_path, 'title = "x"\nskills.typo = 1\nlisting = { budget = "no" }\n')
    assert got["settings-unknown-key sw-home"] == 2
    assert got["settings-bad-value sw-home"] == 3
    broken = tmp_path / "b"
    broken.mkdir()
    assert _diags(broken, "[skills]\nenabled = true\nenabled =\n") == {
        "settings-invalid sw-home": 3
    }


def test_a_key_that_cannot_be_found_keeps_no_line(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    _settings, diags = load_settings(home, None, {"skills": {"nope": 1}}, home=tmp_path)
    (d,) = diags
    assert d.code == "settings-unknown-key" and d.path is None and d.line is None
