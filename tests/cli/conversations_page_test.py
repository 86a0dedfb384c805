#!/usr/bin/env python3
"""The web chat's conversation list in a real browser (Chromium via Playwright).

Usage: conversations_page_test.py PATH_TO_SIGIL  (run by ctest as cli.conversations_page_test)

Starts `sigil serve` (the embedded demo model) with SIGIL_API_TOKEN set, so the list's own HTTP calls must
carry the page's token, then `node tests/e2e/conversations.e2e.mjs`: list, switch, rename (kept across a
reload), delete another conversation and the open one (a second page showing it moves on too).
"""
import sys

from sigil_serve import browser_test_with_token

if __name__ == "__main__":
    browser_test_with_token(sys.argv[1], "conversations.e2e.mjs", "conversations_page_test")
