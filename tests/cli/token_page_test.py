#!/usr/bin/env python3
"""The web page on a gateway that needs an API token, in a real browser (Chromium via Playwright).

Usage: token_page_test.py PATH_TO_SIGIL  (run by ctest as cli.token_page_test)

Starts `sigil serve` with SIGIL_API_TOKEN set, then `node tests/e2e/token.e2e.mjs`: a missing token and a
wrong one are said as such on the page (not "Offline, retrying" forever); the right one connects.
"""
import sys

from sigil_serve import browser_test_with_token

if __name__ == "__main__":
    browser_test_with_token(sys.argv[1], "token.e2e.mjs", "token_page_test")
