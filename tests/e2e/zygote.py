"""`python -m tests.e2e.zygote`: a process that imports aiogram once and forks every `python -m bot`
the end-to-end tests start (tests.e2e.harness). Importing aiogram costs some 5 s of CPU a start
(its pydantic models), most of a bot's start-up and of the end-to-end tests' time.

Only third-party packages are imported before the fork: each child imports the bot's own code
afresh and runs `bot` as `python -m bot` does (runpy, `__main__`), in its own working directory,
environment and log; its exit status is that of a `python -m bot` process. One JSON line a request
on stdin (argv after `-m bot`, env, cwd, log); on stdout `{"started": pid}` at once, then
`{"exited": pid, "code": …}` (negative: the signal) when the child ends. End of stdin: exit.
"""

from __future__ import annotations

import gc
import json
import os
import runpy
import select
import signal
import sys
from typing import Any

PRELOADED = ("aiogram", "aiohttp", "pydantic", "pydantic_settings", "aiosqlite", "asyncpg")


def _say(message: dict[str, Any]) -> None:
    os.write(1, (json.dumps(message) + "\n").encode())


def _reap() -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _say({"exited": pid, "code": os.waitstatus_to_exitcode(status)})


def serve() -> dict[str, Any] | None:
    """Fork on each request; in the parent, never returns until stdin ends (None); in a child,
    returns its request."""
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    pending = b""
    while True:
        ready, _, _ = select.select([0, wake_read], [], [])
        if wake_read in ready:
            os.read(wake_read, 4096)
        _reap()
        if 0 not in ready:
            continue
        data = os.read(0, 65536)
        if not data:
            return None
        pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            request = json.loads(line)
            pid = os.fork()
            if pid == 0:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                os.close(wake_read)
                os.close(wake_write)
                return dict(request)
            _say({"started": pid})


def become(request: dict[str, Any]) -> None:
    """In the child: the request's log as stdout and stderr, its directory, its environment;
    then `python -m bot ARGS` (a SystemExit or an exception ends the process as it would)."""
    log = os.open(request["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    os.close(null)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.path[0] = request["cwd"]  # as `python -m` puts the working directory first
    sys.argv = ["-m", *request["args"]]
    runpy.run_module("bot", run_name="__main__", alter_sys=True)


def main() -> None:
    for name in PRELOADED:
        __import__(name)
    gc.freeze()  # the children share these pages instead of copying them at their first collection
    request = serve()
    if request is not None:
        become(request)


if __name__ == "__main__":
    main()
