#!/usr/bin/env python3
"""One process per data folder, and a scheduled task fires once even when that is defeated.

Usage: data_lock_test.py PATH_TO_SIGIL  (run by ctest as cli.data_lock_test)

- `sigil --version` names the version;
- a second `sigil serve` on a folder a first one holds exits 1 with the first's pid in its message, and so
  does `sigil chat`; the first keeps serving; after it stops, a new one starts on the folder;
- forced double start (the lock file removed under a running server, a second server started): a task that
  falls due is answered once (one task message, one reply, fired once), counted in the SQLite file.
"""
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request

from sigil_serve import Checks, SigilServe, db_rows


CHECKS = Checks("data_lock_test")
fail, check = CHECKS.fail, CHECKS.check


def start(sigil, data, cwd):
    server = SigilServe(sigil, ["--data", data, "--listen", "127.0.0.1:0"], cwd=cwd)
    if not server.wait_listening():
        server.stop(signal.SIGKILL)
        fail("sigil serve did not start:\n" + server.stderr_text())
    return server


def main():
    sigil = os.path.abspath(sys.argv[1])
    version = subprocess.run([sigil, "--version"], capture_output=True, text=True, timeout=30)
    check(version.returncode == 0 and version.stdout.startswith("sigil ") and
          version.stdout.strip().split(" ")[1][0].isdigit(), f"--version: {version.stdout.strip()!r}")

    with tempfile.TemporaryDirectory(prefix="sigil-lock-") as tmp:
        data = os.path.join(tmp, "data")
        first = start(sigil, data, tmp)
        check(any(line.startswith("sigil: config: none") for line in first.out),
              "serve names the configuration it read (none here)")
        try:
            second = subprocess.run([sigil, "serve", "--data", data, "--listen", "127.0.0.1:0"], cwd=tmp,
                                    capture_output=True, text=True, timeout=120)
            check(second.returncode == 1, f"a second serve on the folder exits 1 (got {second.returncode})")
            check(f"in use by process {first.proc.pid}" in second.stderr,
                  f"... naming the first's pid {first.proc.pid}: {second.stderr.strip()}")
            chat = subprocess.run([sigil, "chat", "--data", data], cwd=tmp, input="hello\n",
                                  capture_output=True, text=True, timeout=120)
            check(chat.returncode != 0 and f"in use by process {first.proc.pid}" in chat.stderr,
                  f"sigil chat on the folder is refused the same way: {chat.stderr.strip()}")
            with urllib.request.urlopen(first.url + "/healthz", timeout=30) as r:
                check(r.status == 200, "the first server still answers")
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not any("request method=GET route=/healthz status=200" in line
                                                          for line in first.err):
                time.sleep(0.1)
            check(any("request method=GET route=/healthz status=200" in line for line in first.err),
                  "the log has a line for the request (standard error)")
        finally:
            check(first.stop() == 0, "the first server stops cleanly")
        again = start(sigil, data, tmp)
        check(True, "after it stopped, a new server starts on the folder")

        # Forced double start: the lock file removed, a second server on the same folder.
        os.remove(os.path.join(data, "sigil.lock"))
        other = start(sigil, data, tmp)
        try:
            now_ms = int(time.time() * 1000)
            db = sqlite3.connect(os.path.join(data, "sigil.db"), timeout=30)
            with db:
                db.execute("INSERT INTO tasks(user_id, conversation_id, id, message, due_at, created_at) "
                           "VALUES ('web', 'twice', 'task-once', 'water the plants', ?, ?)", (now_ms, now_ms))
            db.close()
            # Both schedulers look at the store at least every 30 s.
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                if db_rows(data, "SELECT fired_at IS NOT NULL FROM tasks WHERE id = 'task-once'") == [(1,)]:
                    break
                time.sleep(0.5)
            # Let both sweep at least once more after it fired, then count.
            time.sleep(35)
            fired = db_rows(data, "SELECT fired_at IS NOT NULL FROM tasks WHERE id = 'task-once'")
            check(fired == [(1,)], f"the task is marked fired: {fired}")
            asked = db_rows(data, "SELECT COUNT(*) FROM messages WHERE conversation_id = 'twice' AND role = 'user' "
                               "AND text LIKE '%water the plants%' AND task_id = 'task-once'")[0][0]
            replies = db_rows(data, "SELECT COUNT(*) FROM messages WHERE conversation_id = 'twice' "
                                 "AND role = 'assistant'")[0][0]
            check(asked == 1, f"two servers on one folder: the task's turn ran once (task messages: {asked})")
            check(replies == 1, f"... and was answered once (replies: {replies})")
            turn_lines = [line for s in (again, other) for line in s.err
                          if " turn " in line and "conversation=twice" in line]
            check(len(turn_lines) == 1 and "status=ok" in turn_lines[0] and "model_calls=1" in turn_lines[0],
                  f"the log has one turn line for it, ok: {turn_lines}")
        finally:
            for server in (other, again):
                server.stop_or_fail(fail, "a server")
    print("data_lock_test: all passed")


if __name__ == "__main__":
    main()
