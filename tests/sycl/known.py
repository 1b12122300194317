"""Known failures, a ratchet: `ZEKIT_SYCL_KNOWN=FILE` names tests (one node id a line, `# reason`
after it) that fail today through driver bugs being fixed. Such a test that fails is reported as
xfail; one that passes fails the run (XPASS, strict), so the list only shrinks. A test not listed
fails as usual. `ZEKIT_SYCL_UPDATE_KNOWN=1` rewrites FILE from this run's failures.

At the end the failures (known or not) are printed grouped by reason: the signal of a crash, or
the exception's message (for a refused module, the driver's build log).
"""

import os
import re
from collections import defaultdict

import pytest

_known = {}
_failures = {}  # node id -> reason
_passed_call = set()
_outcome = {}  # node id -> passed | failed | skipped | xfailed (after the list is applied)
_RANK = {"passed": 0, "skipped": 1, "xfailed": 2, "failed": 3}


def pytest_configure(config):
    path = os.environ.get("ZEKIT_SYCL_KNOWN")
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                node, _, reason = line.partition("#")
                if node.strip():
                    _known[node.strip()] = reason.strip() or "known failure"


def reason_of(report):
    text = str(report.longrepr)
    m = re.search(r"running the test (CRASHED with signal[^\n]*|TIMED OUT[^\n]*|EXITED[^\n]*)", text)
    if m:
        return m.group(1)
    if report.skipped and isinstance(report.longrepr, tuple):
        return report.longrepr[2]
    lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
    lines = [ln for ln in lines if ln and not ln.startswith("Build program log for")]
    if not lines:
        lines = [text.strip().splitlines()[-1] if text.strip() else "no message"]
    # Numbers that differ from test to test (mismatch counts, sizes) would split the groups.
    first = lines[0] if "The program was built" not in lines[0] else " ".join(lines[1:2]) or lines[0]
    first = re.sub(r" from '<dpctl\.SyclDevice [^>]*>'\.?", "", first)
    return re.sub(r"\b0x[0-9a-f]+\b", "0x…", first)[:200]


# A wrapper: its first half runs before every plain implementation, pytest's own count of
# failures (the session's, which sets the exit status) included.
@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_logreport(report):
    _apply(report)
    return (yield)


def _apply(report):
    node = report.nodeid
    if report.failed:
        _failures.setdefault(node, f"{'' if report.when == 'call' else report.when + ': '}{reason_of(report)}")
        if node in _known:
            report.outcome = "skipped"
            report.wasxfail = f"known: {_known[node]}"
    elif report.passed and report.when == "call":
        _passed_call.add(node)
        if node in _known:
            report.outcome = "failed"
            report.longrepr = (f"[XPASS(strict)] {node} is listed as a known failure ({_known[node]}) but "
                               f"passes now: remove it from {os.environ.get('ZEKIT_SYCL_KNOWN')}")
    if hasattr(report, "wasxfail") and report.skipped:
        now = "xfailed"
    elif report.failed:
        now = "failed"
    elif report.skipped:
        now = "skipped"
    elif report.when == "call":
        now = "passed"
    else:
        return
    if _RANK[now] >= _RANK[_outcome.get(node, "passed")]:
        _outcome[node] = now


def pytest_sessionfinish(session):
    """`ZEKIT_SYCL_SUMMARY=FILE`: the counts, for `cargo xtask sycl`'s closing line."""
    path = os.environ.get("ZEKIT_SYCL_SUMMARY")
    if path:
        counts = {k: 0 for k in _RANK}
        for v in _outcome.values():
            counts[v] += 1
        with open(path, "w") as f:
            f.write(" ".join(f"{k}={v}" for k, v in counts.items()) + "\n")


def pytest_terminal_summary(terminalreporter):
    tr = terminalreporter
    groups = defaultdict(list)
    for node, reason in _failures.items():
        groups[reason].append(node)
    if groups:
        tr.section("zekit: failures grouped by reason")
        for reason, nodes in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            known = sum(n in _known for n in nodes)
            tr.write_line(f"{len(nodes):5d} ({known} known)  {reason}")
            for n in nodes[:3]:
                tr.write_line(f"         e.g. {n}")
    path = os.environ.get("ZEKIT_SYCL_KNOWN")
    if path and os.environ.get("ZEKIT_SYCL_UPDATE_KNOWN") == "1":
        with open(path, "w") as f:
            f.write("# Written by `cargo xtask sycl --update-known`: tests failing through known driver bugs.\n")
            for node in sorted(_failures):
                f.write(f"{node}  # {_failures[node][:120]}\n")
        tr.write_line(f"zekit: wrote {len(_failures)} known failures to {path}")
