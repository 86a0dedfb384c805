// The system-prompt section that teaches a model the configured actions (architecture: "the same spec
// yields ... the prompt section that teaches the model the spellings").
//
// Promise: the text is generated from the Registry alone, so it never teaches a spelling the parser does not
// accept. Every action appears once per dialect group where it has a spelling (Tags, Brackets, JSON bodies,
// and Say blocks in say mode), with its syntax, its parameters (required ones marked), defaults, enum values,
// rules, and exactly one example; each example parses as a valid directive of its action (the tests run them
// through the real parser). The output is deterministic: registry order, no clocks, no configuration files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sigil/catalog/registry.h"

namespace sigil::catalog {

struct PromptOptions {
  // Canonical action names to teach. Empty: every registered action.
  std::vector<std::string> allowed;
  // Canonical action names never taught (policy forbids them in this chat, 12.6). Wins over `allowed`.
  std::vector<std::string> denied;
  // Say mode (6.1): teach `<say>` and the `<file>` tag. Without it the say action is never taught, and
  // neither are file tags of actions that have another spelling.
  bool say_mode = false;
};

// Whether `options` let the action named `action` (canonical) be taught.
// One MCP tool in one line: `server/tool {"arg": type, "opt"?: type}: description` (first line, capped).
std::string mcp_tool_summary(const McpToolDoc& tool);

bool prompt_includes(const PromptOptions& options, std::string_view action);

// The prompt section: plain Markdown-ish text, ending with a line break. Empty when no action is taught.
std::string prompt_section(const Registry& registry, const PromptOptions& options);

// One example the section shows, with the action it must yield.
struct PromptExample {
  std::string group;   // "Tags", "Brackets", "JSON bodies", "Say blocks"
  std::string action;  // canonical name
  std::string text;    // the example exactly as printed
};

// Every example of prompt_section(registry, options), in printed order.
std::vector<PromptExample> prompt_examples(const Registry& registry, const PromptOptions& options);

}  // namespace sigil::catalog
