#!/usr/bin/env python3
"""`sigil parse --stats` reads and feeds its input as a stream (a block at a time, counting events as they
come): its four numbers must equal those of the summary that `sigil parse` builds from the whole input, for
inputs larger than its read block, with directives, code, invalid UTF-8 and a sequence split across the
block boundary, whole and with --chunk.

Usage: parse_stats_test.py PATH_TO_SIGIL  (run by ctest as cli.parse_stats_test)
"""
import json
import subprocess
import sys
import unittest

SIGIL = None
BLOCK = 1 << 20  # feed_stream's read block (src/app/parse_command.cpp)


def run(data, *args):
    p = subprocess.run([SIGIL, "parse", *args], input=data, capture_output=True, timeout=300)
    assert p.returncode == 0, p.stderr.decode()
    return json.loads(p.stdout.decode().splitlines()[-1])


def expected(data, *args):
    summary = run(data, *args)
    return {
        "bytes_in": len(data),
        "text_bytes": len(summary["text"].encode()),
        "directives": len(summary["directives"]),
        "diagnostics": len(summary["diagnostics"]),
    }


def reply(size):
    parts = []
    paragraph = ("The quick brown fox jumps over the lazy dog, caf\u00e9 and na\u00efve \u2014 twice.\n" * 6
                 + "Use `code` here.\n```\nfenced <react emoji=\"x\"/> line\n```\n"
                 + "Sure! [REMEMBER:likes tea] Anything else? <react emoji=\"\U0001F44D\"/>\n\n").encode()
    while sum(map(len, parts)) < size:
        parts.append(paragraph)
        if len(parts) % 7 == 0:
            parts.append(b"bad \xff\xc3 bytes\n")
    data = b"".join(parts)[:size]
    # A 4-byte sequence across the first read block's end.
    cut = BLOCK - 2
    return data[:cut] + "\U0001F600".encode() + data[cut:]


class ParseStats(unittest.TestCase):
    def test_stream_equals_summary(self):
        data = reply(3 * BLOCK + 12345)
        self.assertEqual(run(data, "--stats"), expected(data))

    def test_chunked(self):
        data = reply(BLOCK + 777)
        self.assertEqual(run(data, "--stats", "--chunk", "7"), expected(data, "--chunk", "7"))

    def test_empty_and_events_win(self):
        self.assertEqual(run(b"", "--stats"), {"bytes_in": 0, "text_bytes": 0, "directives": 0, "diagnostics": 0})
        p = subprocess.run([SIGIL, "parse", "--stats", "--events"], input=b"hi", capture_output=True, timeout=60)
        self.assertIn('"event":"text"', p.stdout.decode())


if __name__ == "__main__":
    SIGIL = sys.argv.pop(1)
    unittest.main()
