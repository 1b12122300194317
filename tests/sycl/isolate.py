"""`--isolate`: runs each test in a forked child, so a test that kills the process (a signal
from the runtime or the driver) fails alone, with the signal named, and the others still run.

pytest-forked does the same, but its reports do not survive pytest 9 (every test "EXITED with
status 3"); this plugin ships reports through pytest's own serialization hooks (as xdist does).
`--isolate-timeout=S` kills a child that runs longer and fails its test.
"""

import faulthandler
import json
import os
import re
import signal
import sys
import tempfile
import time

import pytest
from _pytest.runner import runtestprotocol


def pytest_addoption(parser):
    group = parser.getgroup("isolate")
    group.addoption("--isolate", action="store_true", help="run each test in a forked child")
    group.addoption("--isolate-timeout", type=float, default=300.0, help="seconds a child may run (default 300)")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    if not item.config.getoption("isolate"):
        return None
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    for rep in _run_in_child(item):
        item.ihook.pytest_runtest_logreport(report=rep)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


def _run_in_child(item):
    config = item.config
    with tempfile.TemporaryDirectory(prefix="zekit-isolate-") as tmp:
        result = os.path.join(tmp, "reports.json")
        pid = os.fork()
        if pid == 0:
            code = 0
            # A fatal signal's Python stack goes to fd 2, which during a test is pytest's capture
            # (read back by the parent below), not the terminal.
            faulthandler.enable(file=sys.__stderr__, all_threads=False)
            try:
                reports = runtestprotocol(item, log=False, nextitem=None)
                data = [config.hook.pytest_report_to_serializable(config=config, report=r) for r in reports]
                with open(result, "w") as f:
                    json.dump(data, f)
            except BaseException as e:  # noqa: BLE001 - anything here must still end the child
                os.write(2, f"isolate: the child failed to report: {e!r}\n".encode())
                code = 3
            os._exit(code)
        status, waited = _wait(pid, config.getoption("isolate_timeout"))
        if status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and os.path.exists(result):
            with open(result) as f:
                reports = [config.hook.pytest_report_from_serializable(config=config, data=d) for d in json.load(f)]
            for rep in reports:
                # JSON made the (path, line, message) of a skip a list; pytest's summary wants a tuple.
                if isinstance(rep.longrepr, list):
                    rep.longrepr = tuple(rep.longrepr)
            return reports
        return [_crash_report(item, status, waited)]


def _wait(pid, timeout):
    deadline = time.monotonic() + timeout
    pause = 0.001
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status, None
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None, timeout
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _crash_report(item, status, waited):
    if status is None:
        what = f"TIMED OUT after {waited:.0f} s (killed)"
    elif os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        what = f"CRASHED with signal {sig} ({signal.Signals(sig).name})"
    else:
        what = f"EXITED with status {os.WEXITSTATUS(status)} before reporting"
    # What the child printed before it died is still in pytest's capture (shared with the child).
    capman = item.config.pluginmanager.getplugin("capturemanager")
    out, err = capman.read_global_capture() if capman is not None else ("", "")
    noise = ("/_pytest/", "/pluggy/", "isolate.py", "<frozen runpy>", "Extension modules:")
    lines = [ln for ln in (out + err).splitlines() if not any(n in ln for n in noise)]
    tail = "\n".join(lines[-30:])
    # Where in Python it died: faulthandler's innermost frame.
    frame = re.search(r'most recent call first\):\n\s+File "([^"]+)", line (\d+) in (\S+)', out + err)
    if frame:
        what += f" in {frame.group(3)} ({os.path.basename(frame.group(1))}:{frame.group(2)})"
    longrepr = f"{item.location[0]}:{item.location[1]}: running the test {what}"
    if tail:
        longrepr += "\nlast output of the child:\n" + tail
    rep = pytest.TestReport(item.nodeid, item.location, dict(item.keywords), "failed", longrepr, "call", [], 0.0)
    return rep
