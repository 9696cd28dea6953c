"""``skill://`` URLs: every resolution rule, and a table of hostile URLs that must fail safely."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from skillpath import (
    ResolveError,
    Resource,
    SkillSource,
    hookimpl,
    load_skill_file,
    resolve_skill_url,
    skill_from_text,
)
from skillpath.safety import ContainmentError
from skillpath.urls import UnknownSkillURLError

from .conftest import Runtime, skill_text

SECRET = "TOP-SECRET-OUTSIDE-THE-SKILL"


@pytest.fixture
def tree(rt: Runtime) -> Runtime:
    """A ``pdf`` skill with files, inner and outer symlinks, and a hidden skill."""
    skill_md = rt.project_skill("pdf", skill_text("Read PDF files.", body="# PDF\n"))
    base = skill_md.parent
    outside = rt.project.parent / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (base / "references").mkdir()
    (base / "references" / "tables.md").write_text("tables\n")
    (base / "data.json").write_text('{"a": 1}')
    (base / "notes.txt").write_text("notes")
    (base / "guide.markdown").write_text("guide")
    (base / "page.mdx").write_text("mdx")
    (base / "UPPER.MD").write_text("upper")
    (base / "with space.md").write_text("spaced")
    (base / "été.md").write_text("accents")
    (base / ".hidden-file").write_text("dot")
    (base / "scripts").mkdir()
    (base / "scripts" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (base / "escape.md").symlink_to(outside / "secret.txt")
    (base / "outdir").symlink_to(outside, target_is_directory=True)
    (base / "inner-link.md").symlink_to(base / "references" / "tables.md")
    (base / "binary.bin").write_bytes(b"\x00\x01\x02binary")
    os.mkfifo(base / "pipe.md")
    rt.project_skill("secret-tool", skill_text("Hidden helper.", body="hidden body\n", hide="true"))
    return rt


def test_bare_url_is_the_skill_md(tree: Runtime) -> None:
    s = tree.session()
    for url in ("skill://pdf", "skill://pdf/"):
        res = s.resolve(url)
        assert res.content.startswith("---\ndescription: Read PDF files.")
        assert res.mime_type == "text/markdown"
        assert res.path == (tree.project / ".skillpath/skills/pdf/SKILL.md").resolve()
        assert res.skill == "pdf"
        assert res.url == url
        assert not res.is_directory


@pytest.mark.parametrize(
    ("rel", "mime", "content"),
    [
        ("references/tables.md", "text/markdown", "tables\n"),
        ("guide.markdown", "text/markdown", "guide"),
        ("page.mdx", "text/markdown", "mdx"),
        ("UPPER.MD", "text/markdown", "upper"),
        ("data.json", "application/json", '{"a": 1}'),
        ("notes.txt", "text/plain", "notes"),
        ("scripts/run.sh", "text/plain", "#!/bin/sh\necho hi\n"),
        ("with%20space.md", "text/markdown", "spaced"),
        ("%C3%A9t%C3%A9.md", "text/markdown", "accents"),
        ("references%2Ftables.md", "text/markdown", "tables\n"),
        ("./references//tables.md", "text/markdown", "tables\n"),
        ("inner-link.md", "text/markdown", "tables\n"),
    ],
)
def test_files_and_content_types(tree: Runtime, rel: str, mime: str, content: str) -> None:
    res = tree.session().resolve(f"skill://pdf/{rel}")
    assert res.content == content
    assert res.mime_type == mime
    assert res.path is not None and res.path.is_file()


def test_directory_gives_a_listing(tree: Runtime) -> None:
    s = tree.session()
    res = s.resolve("skill://pdf/references")
    assert res.is_directory and res.content == "tables.md\n" and res.mime_type == "text/plain"
    top = s.resolve("skill://pdf/.").content.splitlines()
    assert "references/" in top and "scripts/" in top and "SKILL.md" in top
    assert ".hidden-file" not in top
    assert top == sorted(top)


def test_missing_file_is_file_not_found(tree: Runtime) -> None:
    s = tree.session()
    with pytest.raises(ResolveError) as err:
        s.resolve("skill://pdf/nope.md")
    base = (tree.project / ".skillpath/skills/pdf").resolve()
    assert str(err.value) == f"File not found: {base / 'nope.md'}"


def test_no_fallback_search(tree: Runtime) -> None:
    # tables.md exists only under references/; nothing looks for it elsewhere
    with pytest.raises(ResolveError, match="File not found"):
        tree.session().resolve("skill://pdf/tables.md")


def test_unknown_name_lists_available_names(tree: Runtime) -> None:
    with pytest.raises(UnknownSkillURLError) as err:
        tree.session().resolve("skill://nope/x.md")
    assert str(err.value) == "Unknown skill 'nope'. Available skills: pdf, secret-tool"
    assert err.value.name == "nope" and isinstance(err.value, ResolveError)


def test_unknown_name_offers_the_nearest_names(rt: Runtime) -> None:
    for i in range(40):
        rt.project_skill(f"skill-{i:04}", description=f"Skill {i}.")
    s = rt.session()
    with pytest.raises(ResolveError) as err:
        s.resolve("skill://skil-0001")
    message = str(err.value)
    assert message.startswith("Unknown skill 'skil-0001'. Did you mean: skill-0001")
    assert message.endswith("(40 skills available; `skillpath list`)")
    with pytest.raises(ResolveError) as err:
        s.resolve("skill://SKILL-0007/notes.md")
    assert str(err.value).startswith("Unknown skill 'SKILL-0007'. Did you mean: skill-0007")


def test_a_conditional_skill_that_is_not_active_says_so(rt: Runtime) -> None:
    rt.project_skill("py-style", skill_text("Python style.", paths='"**/*.py"'))
    s = rt.session()
    with pytest.raises(ResolveError) as err:
        s.resolve("skill://py-style")
    assert str(err.value) == (
        "Skill 'py-style' is conditional (paths: **/*.py) and not active yet; "
        "it activates when a matching file is touched"
    )
    s.activate_for_paths(["src/x.py"])
    assert s.resolve("skill://py-style").content.startswith("---")


def test_name_match_is_exact_and_case_sensitive(tree: Runtime) -> None:
    s = tree.session()
    for url in ("skill://PDF", "skill://Pdf/notes.txt", "skill://pd", "skill://pdf-"):
        with pytest.raises(ResolveError, match="Unknown skill"):
            s.resolve(url)


def test_hidden_skills_resolve(tree: Runtime) -> None:
    s = tree.session()
    assert "secret-tool" not in s.listing().text
    assert s.resolve("skill://secret-tool").content.endswith("hidden body\n")


def test_non_regular_and_binary_files_are_refused(tree: Runtime) -> None:
    s = tree.session()
    with pytest.raises(ResolveError, match="not a regular file"):
        s.resolve("skill://pdf/pipe.md")  # a FIFO: refused without blocking
    with pytest.raises(ResolveError, match="binary"):
        s.resolve("skill://pdf/binary.bin")


def test_skill_without_files_on_disk(rt: Runtime) -> None:
    s = rt.session()
    skill, _ = skill_from_text(
        skill_text("In memory only."),
        name="memory",
        source=SkillSource("packs", "package", None, "pack"),
    )
    assert skill is not None
    s.add_skills([skill])
    for url in ("skill://memory", "skill://memory/ref.md"):
        with pytest.raises(ResolveError, match=r"no (files|directory) on disk"):
            s.resolve(url)


def test_skills_added_later_resolve(rt: Runtime) -> None:
    s = rt.session()
    with pytest.raises(ResolveError, match="no skills are available"):
        s.resolve("skill://late")
    path = rt.user_skill("late", description="Added later.")
    skill, _ = load_skill_file(path, SkillSource("native", "user", path.parent.parent))
    assert skill is not None
    assert s.add_skills([skill]) == [skill]
    assert s.resolve("skill://late").path == path.resolve()


def test_a_plugin_runs_before_the_builtin_resolver_and_can_add_schemes(tree: Runtime) -> None:
    class Virtual:
        @hookimpl
        def resolve_url(self, url: str) -> Resource | None:
            if url == "skill://pdf/virtual.md":
                return Resource(url, "from plugin", "text/markdown", None, "pdf")
            if url.startswith("memo://"):
                return Resource(url, url[len("memo://") :])
            return None

    host = tree.host()
    assert host.add(Virtual(), "virtual")
    s = tree.session(host=host)
    assert s.resolve("skill://pdf/virtual.md").content == "from plugin"
    assert s.resolve("memo://hello").content == "hello"
    assert s.resolve("skill://pdf/notes.txt").content == "notes"  # the rest still built-in


def test_unhandled_scheme(tree: Runtime) -> None:
    with pytest.raises(ResolveError, match="no resolver handles"):
        tree.session().resolve("https://example.com/x")


def test_direct_resolver_refuses_other_schemes(tree: Runtime) -> None:
    s = tree.session()
    with pytest.raises(ResolveError, match="not a skill:// URL"):
        resolve_skill_url("file:///etc/passwd", s.ctx.skills)


# -- hostile URLs: every one fails with a ResolveError and never returns outside content --------

LONG = "a" * 20000
HOSTILE: list[tuple[str, type[ResolveError]]] = [
    # absolute paths
    ("skill://pdf//etc/passwd", ContainmentError),
    ("skill://pdf/%2Fetc%2Fpasswd", ContainmentError),
    ("skill://pdf/%2fetc/passwd", ContainmentError),
    ("skill://pdf/C:%5CWindows%5Cwin.ini", ContainmentError),
    # .. segments, plain and percent-encoded
    ("skill://pdf/../pdf/SKILL.md", ContainmentError),
    ("skill://pdf/..", ContainmentError),
    ("skill://pdf/references/../../../outside/secret.txt", ContainmentError),
    ("skill://pdf/%2e%2e/%2e%2e/%2e%2e/outside/secret.txt", ContainmentError),
    ("skill://pdf/%2E%2E%2F%2E%2E%2F%2E%2E%2Foutside%2Fsecret.txt", ContainmentError),
    ("skill://pdf/references%2F..%2F..%2F..%2Foutside%2Fsecret.txt", ContainmentError),
    ("skill://pdf/.%2e/secret.txt", ContainmentError),
    # backslashes, raw and encoded
    ("skill://pdf/..\\..\\outside\\secret.txt", ContainmentError),
    ("skill://pdf/..%5C..%5C..%5Coutside%5Csecret.txt", ContainmentError),
    ("skill://pdf/references\\tables.md", ContainmentError),
    # NUL and control characters
    ("skill://pdf/notes.txt%00.md", ContainmentError),
    ("skill://pdf/notes.txt\x00", ContainmentError),
    ("skill://pdf/a%0Ab", ContainmentError),
    # symlinks out of the skill directory
    ("skill://pdf/escape.md", ContainmentError),
    ("skill://pdf/outdir/secret.txt", ContainmentError),
    ("skill://pdf/outdir", ContainmentError),
    # very long names and paths
    ("skill://" + LONG, ResolveError),
    ("skill://" + LONG + "/x.md", ResolveError),
    ("skill://pdf/" + LONG, ContainmentError),
    ("skill://pdf/" + "a/" * 3000 + "x", ContainmentError),
    # traversal in the name part, invalid UTF-8, double encoding
    ("skill://..%2Foutside/secret.txt", ResolveError),
    ("skill://%2e%2e/outside/secret.txt", ResolveError),
    ("skill://../outside/secret.txt", ResolveError),
    ("skill:///etc/passwd", ResolveError),
    ("skill://pdf/%ff%fe", ResolveError),
    ("skill://pdf/%252e%252e/%252e%252e/%252e%252e/outside/secret.txt", ResolveError),
]


@pytest.mark.parametrize(("url", "error"), HOSTILE, ids=[u[:60] for u, _ in HOSTILE])
def test_hostile_urls_fail_safely(tree: Runtime, url: str, error: type[ResolveError]) -> None:
    s = tree.session()
    with pytest.raises(error) as err:
        s.resolve(url)
    message = str(err.value)
    assert SECRET not in message
    assert len(message) < 4000  # long input is not echoed back in full
    assert not s.diagnostics  # refused by the resolver, not by a crash in it


def test_hostile_urls_never_read_outside_via_the_cli(tree: Runtime) -> None:
    from click.testing import CliRunner
    from skillpath.cli import main

    for url, _ in HOSTILE[:20]:
        res = CliRunner().invoke(main, ["read", url, "--cwd", str(tree.project)], env=tree.environ)
        assert res.exit_code == 1, url
        assert SECRET not in res.stdout and SECRET not in res.stderr
        assert res.stderr.startswith("skillpath: error: ")


def test_containment_uses_real_paths_for_a_symlinked_skill_dir(rt: Runtime) -> None:
    # the skill dir itself is a symlink: files inside its real target are fine
    real = rt.project / "real-skills" / "linked"
    real.mkdir(parents=True)
    (real / "SKILL.md").write_text(skill_text("Linked."))
    (real / "ref.md").write_text("ref")
    root = rt.project / ".skillpath" / "skills"
    root.mkdir(parents=True)
    (root / "linked").symlink_to(real, target_is_directory=True)
    s = rt.session()
    assert s.resolve("skill://linked/ref.md").content == "ref"
    assert s.resolve("skill://linked/ref.md").path == Path(os.path.realpath(real / "ref.md"))
