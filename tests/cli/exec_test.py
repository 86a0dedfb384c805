#!/usr/bin/env python3
"""`sigil exec` end to end: the real binary, a real SQLite file, real espeak-ng and opusinfo.

Usage: exec_test.py PATH_TO_SIGIL  (run by ctest as cli.exec)

What it shows (issue 3, "Prove it"):
- one run: text, a file from DATA/outbound, a voice note (valid Ogg Opus), a reaction and an inline
  calculation come out in reply order, with each directive's result;
- a second run with the same conversation and turn repeats nothing: every completed action is `duplicate`,
  no file, voice or reaction is delivered again;
- kill -9 in the middle of a turn (the reply still streaming in, two actions already completed), then a
  replay of the whole turn: the completed actions are not repeated (the scheduled task exists once), the
  rest run;
- --now: a task scheduled for later fires once when its time has come, and never again.
"""
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

SIGIL = None


def run_exec(data, reply, *args, check=True):
    p = subprocess.run([SIGIL, "exec", "--data", data, *args], input=reply.encode(), capture_output=True,
                       timeout=120)
    if check and p.returncode != 0:
        raise AssertionError(f"sigil exec failed ({p.returncode}): {p.stderr.decode()}")
    lines = p.stdout.decode().splitlines()
    assert len(lines) == 1, f"expected one JSON line, got {lines!r}"
    return json.loads(lines[0])


def statuses(report):
    return [(r["action"], r["status"]) for r in report["results"]]


class ExecTest(unittest.TestCase):
    def setUp(self):
        self.data = tempfile.mkdtemp(prefix="sigil-exec-test-")
        os.makedirs(os.path.join(self.data, "outbound"))
        with open(os.path.join(self.data, "outbound", "report.pdf"), "wb") as f:
            f.write(b"%PDF-1.4 sigil test")

    def tearDown(self):
        shutil.rmtree(self.data, ignore_errors=True)

    def test_one_turn_in_order_then_a_replay_repeats_nothing(self):
        reply = ('<react emoji="thumbsup"/>Here you go: <file>report.pdf</file> '
                 '<voice>Hello from sigil.</voice> Two and two make [CALCULATE:2+2]. [REMEMBER:likes tea]')
        first = run_exec(self.data, reply, "--conversation", "c1", "--turn", "t1")
        ops = [d["op"] for d in first["deliveries"]]
        self.assertEqual(ops, ["reaction", "text", "file", "voice", "text"], first)
        self.assertEqual(first["deliveries"][0]["emoji"], "\U0001F44D")
        self.assertEqual(first["deliveries"][1]["text"], "Here you go:")
        self.assertEqual(first["deliveries"][2]["path"], "report.pdf")
        self.assertEqual(first["deliveries"][2]["kind"], "document")
        self.assertEqual(len(first["deliveries"][2]["sha256"]), 64)
        self.assertIn("Two and two make 4.", first["deliveries"][4]["text"])
        self.assertNotIn("<", "".join(d.get("text", "") for d in first["deliveries"]))
        self.assertEqual(statuses(first), [("react", "ok"), ("send-file", "ok"), ("voice", "ok"),
                                           ("calculate", "ok"), ("remember", "ok")], first)
        voice = first["deliveries"][3]["path"]
        self.assertTrue(os.path.isfile(voice), voice)
        with open(voice, "rb") as f:
            self.assertEqual(f.read(4), b"OggS")
        if shutil.which("opusinfo"):
            info = subprocess.run(["opusinfo", voice], capture_output=True, timeout=60)
            self.assertEqual(info.returncode, 0, info.stdout + info.stderr)
        self.assertEqual(first["fired"], [])

        second = run_exec(self.data, reply, "--conversation", "c1", "--turn", "t1")
        self.assertTrue(all(s == "duplicate" for _, s in statuses(second)), second)
        self.assertEqual([d["op"] for d in second["deliveries"]], ["text"], second)

        third = run_exec(self.data, reply, "--conversation", "c1", "--turn", "t2")
        self.assertTrue(all(s == "ok" for _, s in statuses(third)), third)

    def test_kill_9_mid_turn_then_replay_repeats_no_completed_action(self):
        part1 = ('Sure. <scheduleTask>{"message":"water the plants","delay":"2h"}</scheduleTask> '
                 '[REMEMBER:has plants] ')
        part2 = 'And also <setMemory>{"itemId":"plants","value":3}</setMemory> done.'
        proc = subprocess.Popen([SIGIL, "exec", "--data", self.data, "--conversation", "c9", "--turn", "t9"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdin.write(part1.encode())
        proc.stdin.flush()
        db = os.path.join(self.data, "sigil.db")
        deadline = time.monotonic() + 60
        completed = 0
        while time.monotonic() < deadline:
            try:
                con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
                completed = con.execute("SELECT count(*) FROM once_log WHERE conversation_id='c9' "
                                        "AND completed_at IS NOT NULL").fetchone()[0]
                con.close()
            except sqlite3.Error:
                completed = 0
            if completed == 2:
                break
            time.sleep(0.05)
        self.assertEqual(completed, 2, "the two directives of the first part should have completed")
        self.assertIsNone(proc.poll(), "sigil exec should still be waiting for the rest of the reply")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            try:
                pipe.close()
            except BrokenPipeError:
                pass
        self.assertEqual(proc.returncode, -signal.SIGKILL)

        replay = run_exec(self.data, part1 + part2, "--conversation", "c9", "--turn", "t9")
        self.assertEqual(statuses(replay), [("scheduleTask", "duplicate"), ("remember", "duplicate"),
                                            ("setMemory", "ok")], replay)
        con = sqlite3.connect(db)
        tasks = con.execute("SELECT count(*) FROM tasks WHERE conversation_id='c9'").fetchone()[0]
        con.close()
        self.assertEqual(tasks, 1, "the scheduled task must exist exactly once")

    def test_now_fires_a_due_task_once(self):
        scheduled = run_exec(self.data, '<scheduleTask>{"message":"stand up","delay":"1h"}</scheduleTask>',
                             "--conversation", "c2", "--now", "2026-11-21T10:00:00Z")
        self.assertEqual(statuses(scheduled), [("scheduleTask", "ok")], scheduled)
        self.assertEqual(scheduled["fired"], [])
        early = run_exec(self.data, "", "--conversation", "c2", "--now", "2026-11-21T10:59:00Z")
        self.assertEqual(early["fired"], [])
        due = run_exec(self.data, "", "--conversation", "c2", "--now", "2026-11-21T11:00:00Z")
        self.assertEqual(len(due["fired"]), 1, due)
        self.assertEqual(due["fired"][0]["message"], "stand up")
        self.assertEqual(due["fired"][0]["conversation"], "c2")
        self.assertTrue(due["fired"][0]["turn"].startswith("task:"))
        again = run_exec(self.data, "", "--conversation", "c2", "--now", "2026-11-21T12:00:00Z")
        self.assertEqual(again["fired"], [])

    def test_usage_errors(self):
        p = subprocess.run([SIGIL, "exec", "--data", self.data, "--deny", "nosuchaction"], input=b"",
                           capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        p = subprocess.run([SIGIL, "exec", "--data", self.data, "--now", "yesterday"], input=b"",
                           capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"--now", p.stderr)


if __name__ == "__main__":
    SIGIL = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
