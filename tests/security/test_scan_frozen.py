"""The content checks' findings on a fixed set of texts, frozen: a change that makes
the checks faster must find exactly what they found before.

The texts: the hostile cases and fixtures, the real skills under tests/fixtures,
random mixes of the rules' words (with the letters case folding maps onto ASCII
ones, and words that overlap: ``webhooks.slack``, ``bypasspermissions``,
``confirmation``), and a sample of the benchmark's generated skills; each text
is checked as documentation and as a script. ``SKILLPATH_FREEZE_FINDINGS=1``
writes the expected file again (only when a finding is meant to change).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import random
import sys
import zlib
from pathlib import Path
from types import ModuleType
from typing import Any

from skillpath.contentscan import scan_text

from .test_content_checks import HOSTILE

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "fixtures" / "frozen" / "scan_text.json.z"
BENCH = HERE.parents[1] / "benchmarks" / "bench.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("skillpath_bench_frozen", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _texts() -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for i, (_fid, _sev, case) in enumerate(HOSTILE):
        out.append((f"hostile-{i}", case))
        if ":" in case[:40]:
            out.append((f"hostile-{i}-body", case.partition(":")[2]))
    for root in (HERE / "fixtures", HERE.parent / "fixtures" / "realworld"):
        for p in sorted(root.rglob("*")):
            if p.is_file() and not p.is_symlink() and p.suffix != ".z":
                data = p.read_bytes()[: 256 * 1024]
                if b"\0" not in data[:4096]:
                    out.append(
                        (p.relative_to(HERE.parent).as_posix(), data.decode("utf-8", "replace"))
                    )
    words = [
        *("curl", "wget", "|", "sh", "bash", "base64", "-d", "eval(", "atob(", "exec("),
        *("the", "user", "do", "not", "tell", "ignore", "previous", "instructions"),
        *("~/.aws/credentials", "webhook.site", "ngrok.io", "--yolo", "confirmation"),
        *("http://1.2.3.4", "you", "are", "now", "system", "prompt", "-o", "x", "&&"),
        *("chmod", "+x", "./x", "K", "\u212a", "\u017f", "\u0131", "\u200b", "\n"),
        *("webhooks.slack.com/services/x", "bypasspermissions", "bypass", "iwr", "irm"),
        *("invoke-webrequest", "iex", "(", ")", "Buffer.from(", "powershell", "-enc"),
        *("AAAAAAAAAAAAAAAAAAAAAAAAA", "`", '"', "'", "> ", "| ", "# ", "don't", "hide"),
        *("it", "from", "without", "asking", "for", "approval", "silently", "upload"),
        *("os.environ", "$API_KEY", "~/.ssh/id_rsa", ".netrc", "cat", "open(", "disregard"),
        *("all", "prior", "new", "override", "forget", "conceal", "YOU", "ARE", "NOW"),
    ]
    rng = random.Random(2929)
    for i in range(600):
        out.append((f"mix-{i}", " ".join(rng.choice(words) for _ in range(rng.randint(3, 60)))))
    blob = "".join(
        rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        for _ in range(600)
    )
    out.append(("blob", f"data: {blob}==\n"))
    bench = _bench()
    for i in range(150):
        rng = random.Random(i)
        out.append((f"bench-{i}", bench._skill_text(rng, f"skill-{i}", "ok")))
        out.append((f"bench-rich-{i}", bench._rich_skill_text(rng, f"rich-{i}")))
    return out


def _findings() -> dict[str, list[list[object]]]:
    got: dict[str, list[list[object]]] = {}
    for name, text in _texts():
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        for script in (False, True):
            rows = [
                [f.id, f.severity, f.reason, f.line, f.excerpt]
                for f in scan_text(text, script=script)
            ]
            got[f"{name}:{digest}:{int(script)}"] = rows
    return got


def test_the_checks_find_what_they_found_when_frozen() -> None:
    got = _findings()
    if os.environ.get("SKILLPATH_FREEZE_FINDINGS") == "1":
        EXPECTED.parent.mkdir(parents=True, exist_ok=True)
        EXPECTED.write_bytes(zlib.compress(json.dumps(got, sort_keys=True).encode(), 9))
    expected = json.loads(zlib.decompress(EXPECTED.read_bytes()))
    assert sorted(got) == sorted(expected)
    differ = [k for k in expected if got[k] != expected[k]]
    assert not differ, differ[:5]
    assert sum(map(len, expected.values())) > 1000


def test_the_findings_do_not_depend_on_the_words_seen_before(monkeypatch: Any) -> None:
    """The token tables that skip the rules on lines without a trigger word change no
    finding: not when they start again every few texts, nor against the rules tried
    on every line of every text (the tables' answer taken away)."""
    from skillpath import contentscan

    expected = json.loads(zlib.decompress(EXPECTED.read_bytes()))
    monkeypatch.setattr(contentscan, "_TOKEN_MASKS", {})
    monkeypatch.setattr(contentscan, "_HOT_TOKENS", set())
    monkeypatch.setattr(contentscan, "_TOKENS_MAX", 50)
    assert _findings() == expected
    assert len(contentscan._TOKEN_MASKS) < 50_000  # restarted along the way
    monkeypatch.setattr(contentscan, "_line_masks", lambda text: None)
    assert _findings() == expected
