#!/usr/bin/env python3
"""`sigil chat` end to end: the real binary, a replay model, the console channel.

Usage: chat_test.py PATH_TO_SIGIL  (run by ctest as cli.chat_test)

What it shows: each line of standard input is one message; each reply is printed as it streams, without
markup; a reaction is its own line; a file is saved into DATA/out and shown with its size and path; two
messages get two replies in order; a silent reply prints nothing.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SIGIL = None

REPLAY = r'''
{"match": "react", "reply": "Done! <react emoji=\"thumbsup\"/> Look at your message."}
{"match": "file", "reply": "Here it is: <file>report.pdf</file>\n\nAnything else?"}
{"match": "quiet", "reply": "<no-reply/>"}
{"reply": "Hello from the replay model."}
'''


class ChatTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="sigil-chat-test-")
        self.data = os.path.join(self.dir, "data")
        files = os.path.join(self.dir, "files")
        os.makedirs(files)
        with open(os.path.join(files, "report.pdf"), "wb") as f:
            f.write(b"%PDF-1.4 sigil chat test")
        with open(os.path.join(self.dir, "replay.jsonl"), "w") as f:
            f.write(REPLAY)
        self.config = os.path.join(self.dir, "sigil.toml")
        with open(self.config, "w") as f:
            f.write('[model]\nreplay = "replay.jsonl"\ntokens_per_second = 2000\n'
                    '[actions]\nfile_roots = ["files"]\nvoice = false\n')

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def chat(self, text):
        env = {k: v for k, v in os.environ.items() if not k.startswith("SIGIL_")}
        p = subprocess.run([SIGIL, "chat", "--config", self.config, "--data", self.data],
                           input=text.encode(), capture_output=True, timeout=120, env=env, cwd=self.dir)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        return p.stdout.decode(), p.stderr.decode()

    def test_replies_stream_in_order_without_markup(self):
        out, err = self.chat("hi\nreact please\nsend the file\nbe quiet\nhi again\n")
        saved = os.path.join(os.path.abspath(self.data), "out", "report.pdf")
        self.assertEqual(out,
                         "Hello from the replay model.\n"
                         "Done!\n(reacted \U0001F44D)\nLook at your message.\n"
                         "Here it is:\n"
                         f"[file: report.pdf, 24 B -> {saved}]\n"
                         "Anything else?\n"
                         "Hello from the replay model.\n", err)
        with open(saved, "rb") as f:
            self.assertEqual(f.read(), b"%PDF-1.4 sigil chat test")
        self.assertIn("sigil: model:", err)

    def test_conversation_flag_and_empty_lines(self):
        out, _ = self.chat("\n   \nhi\n")
        self.assertEqual(out, "Hello from the replay model.\n")

    def test_bad_config_is_exit_2(self):
        with open(self.config, "w") as f:
            f.write("[model]\nnot_a_key = 1\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("SIGIL_")}
        p = subprocess.run([SIGIL, "chat", "--config", self.config, "--data", self.data], input=b"hi\n",
                           capture_output=True, timeout=60, env=env)
        self.assertEqual(p.returncode, 2)
        self.assertIn("not_a_key", p.stderr.decode())


if __name__ == "__main__":
    SIGIL = sys.argv.pop(1)
    unittest.main()
