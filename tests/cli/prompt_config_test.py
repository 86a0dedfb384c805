#!/usr/bin/env python3
"""`sigil prompt` teaches only what the configuration makes work (issue 13, item 7).

Usage: prompt_config_test.py PATH_TO_SIGIL  (run by ctest as cli.prompt_config_test)

Without a configuration (defaults: no search provider, no image model, no vision) neither search,
createAIImage nor viewImage is taught, in the prompt section or as tools, while fetch-page is. A configuration
with a SearXNG provider, an image model and vision teaches all three; [fetch] enabled = false and
[agent] denied_actions leave their actions out; a bad configuration is exit status 2 with the reason.
"""
import json
import os
import subprocess
import sys
import tempfile

from sigil_serve import Checks


CHECKS = Checks("prompt_config_test")
fail, check = CHECKS.fail, CHECKS.check


def run(sigil, cwd, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGIL_")}
    return subprocess.run([sigil, "prompt", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def taught(sigil, cwd, *args):
    """(prompt section, tool names) for these arguments."""
    section = run(sigil, cwd, *args)
    check(section.returncode == 0, f"sigil prompt {' '.join(args)} exits 0: {section.stderr}")
    tools = run(sigil, cwd, "--tools", *args)
    check(tools.returncode == 0, f"sigil prompt --tools {' '.join(args)} exits 0: {tools.stderr}")
    return section.stdout, {t["function"]["name"] for t in json.loads(tools.stdout)}


def main():
    sigil = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="sigil-prompt-") as tmp:
        prompt, tools = taught(sigil, tmp)
        for spelling in ("[SEARCH:", "googleSearch", "createAIImage", "viewImage"):
            check(spelling not in prompt, f"defaults: {spelling} is not taught")
        for name in ("search", "createAIImage", "viewImage"):
            check(name not in tools, f"defaults: no {name} tool")
        check("webpageToText" in prompt and "fetch-page" in tools, "defaults: fetch-page is taught")
        check("[CALCULATE:" in prompt and "calculate" in tools, "defaults: the rest is taught")

        everything = os.path.join(tmp, "everything.toml")
        with open(everything, "w", encoding="utf-8") as f:
            f.write('[model]\nurl = "http://127.0.0.1:9/v1"\nimage_model = "gpt-image-1"\nvision = true\n'
                    '[search]\nprovider = "searxng"\nurl = "http://127.0.0.1:8888"\n')
        prompt, tools = taught(sigil, tmp, "--config", everything)
        for spelling in ("[SEARCH:", "createAIImage", "viewImage", "webpageToText"):
            check(spelling in prompt, f"configured: {spelling} is taught")
        for name in ("search", "createAIImage", "viewImage", "fetch-page"):
            check(name in tools, f"configured: the {name} tool is offered")

        # ./sigil.toml is read without --config, as sigil serve reads it.
        with open(os.path.join(tmp, "sigil.toml"), "w", encoding="utf-8") as f:
            f.write('[model]\nurl = "http://127.0.0.1:9/v1"\nimage_model = "dall-e-3"\n'
                    '[fetch]\nenabled = false\n[agent]\ndenied_actions = ["calculate"]\n')
        prompt, tools = taught(sigil, tmp)
        check("createAIImage" in prompt and "createAIImage" in tools, "./sigil.toml: createAIImage is taught")
        check("viewImage" not in prompt and "viewImage" not in tools, "./sigil.toml: no vision, no viewImage")
        check("webpageToText" not in prompt and "fetch-page" not in tools, "[fetch] enabled = false: not taught")
        check("[CALCULATE:" not in prompt and "calculate" not in tools, "denied_actions: calculate is not taught")

        # An image model with the replay model (no url) teaches nothing of it.
        replay = os.path.join(tmp, "replay.toml")
        with open(replay, "w", encoding="utf-8") as f:
            f.write('[model]\nimage_model = "dall-e-3"\nvision = true\n')
        prompt, tools = taught(sigil, tmp, "--config", replay)
        check("createAIImage" not in prompt and "viewImage" not in prompt, "no model url: no pictures taught")

        bad = os.path.join(tmp, "bad.toml")
        with open(bad, "w", encoding="utf-8") as f:
            f.write('[search]\nprovider = "brave"\n')
        r = run(sigil, tmp, "--config", bad)
        check(r.returncode == 2 and "api_key" in r.stderr, f"a bad configuration: exit 2 with the reason: {r.stderr}")
    print("prompt_config_test: passed")


if __name__ == "__main__":
    main()
