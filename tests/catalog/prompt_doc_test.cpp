// The prompt section (spec/prompt_doc.h): every example it teaches parses as a valid directive of its action
// through the real parser, the key lines read as intended, and the section stays compact.
#include "sigil/catalog/prompt_doc.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <iostream>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sigil/catalog/builtin_catalog.h"
#include "sigil/catalog/registry.h"
#include "sigil/parse/parser.h"
#include "sigil/parse/summary.h"
#include "support/count.h"

namespace sigil::catalog {
namespace {

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

using sigil::test::count;

void parse_reply(const Registry& registry, std::string_view reply, bool say_mode, parse::SummarySink& sink) {
  parse::ParserOptions options;
  options.say_mode = say_mode;
  parse::Parser parser(registry, sink, options);
  parser.feed(reply);
  parser.finish(parse::FinishReason::Stop);
}

// The example, written as a model would inside a sentence, yields exactly one valid directive of its action
// (say blocks too, in say mode), and none of its markup reaches the user.
void expect_example_runs(const Registry& registry, const PromptExample& example, bool say_mode) {
  SCOPED_TRACE(example.group + " / " + example.action + ": " + example.text);
  parse::SummarySink sink;
  // Text after an interrupting directive is not delivered (12.2): the section tells the model to write it
  // last.
  const bool interrupts = registry.find_action(example.action)->interrupts;
  parse_reply(registry, "Sure. " + example.text + (interrupts ? "" : " Done."), say_mode, sink);
  ASSERT_EQ(sink.directives().size(), 1u);
  const parse::DirectiveEvent& d = sink.directives().front();
  EXPECT_EQ(d.action, example.action);
  EXPECT_TRUE(d.valid) << d.error;
  EXPECT_TRUE(d.error.empty()) << d.error;
  EXPECT_FALSE(contains(sink.clean_text(), example.text));
  for (const parse::Diagnostic& diag : sink.diagnostics()) {
    ADD_FAILURE() << "diagnostic " << diag.code << ": " << diag.message;
  }
}

Registry builtin_with_mcp() {
  RegistryOptions options;
  options.mcp_servers = {"github", "brave-search"};
  return Registry::builtin(options);
}

TEST(PromptDoc, EveryBuiltinExampleParsesAsAValidDirectiveOfItsAction) {
  const Registry registry = builtin_with_mcp();
  for (bool say_mode : {false, true}) {
    PromptOptions options;
    options.say_mode = say_mode;
    const std::vector<PromptExample> examples = prompt_examples(registry, options);
    ASSERT_FALSE(examples.empty());
    for (const PromptExample& example : examples) expect_example_runs(registry, example, say_mode);
  }
}

TEST(PromptDoc, EachExampleIsPrintedOnceAsWrittenAndOutsideCode) {
  const Registry registry = builtin_with_mcp();
  PromptOptions options;
  options.say_mode = true;
  const std::string section = prompt_section(registry, options);
  const std::vector<PromptExample> examples = prompt_examples(registry, options);
  EXPECT_EQ(count(section, "\n  Example: "), examples.size());
  for (const PromptExample& example : examples) {
    // Backticks would make it inline code, which the parser shows as text (1.2): a model copies what it sees.
    EXPECT_TRUE(contains(section, "\n  Example: " + example.text + "\n")) << example.text;
  }
  EXPECT_EQ(count(section, "```"), 0u);
}

TEST(PromptDoc, EveryActionOncePerGroupAndEveryBuiltinTaught) {
  const Registry registry = builtin_with_mcp();
  PromptOptions options;
  options.say_mode = true;
  std::set<std::pair<std::string, std::string>> seen;
  std::set<std::string> actions;
  for (const PromptExample& e : prompt_examples(registry, options)) {
    EXPECT_TRUE(seen.insert({e.group, e.action}).second) << e.group << " " << e.action;
    actions.insert(e.action);
  }
  for (const ActionSpec& a : registry.actions()) EXPECT_EQ(actions.count(a.name), 1u) << a.name;
}

TEST(PromptDoc, GroupsInOrderWithTheirActions) {
  const std::string section = prompt_section(Registry::builtin(), {});
  const std::size_t tags = section.find("\n### Tags\n");
  const std::size_t brackets = section.find("\n### Brackets\n");
  const std::size_t json = section.find("\n### JSON bodies\n");
  ASSERT_NE(tags, std::string::npos);
  ASSERT_NE(brackets, std::string::npos);
  ASSERT_NE(json, std::string::npos);
  EXPECT_LT(tags, brackets);
  EXPECT_LT(brackets, json);
  EXPECT_FALSE(contains(section, "### Say blocks"));
  EXPECT_EQ(section.rfind("## Actions\n", 0), 0u);

  // Spellings land in their dialect's group.
  const std::string_view tag_part = std::string_view(section).substr(tags, brackets - tags);
  const std::string_view bracket_part = std::string_view(section).substr(brackets, json - brackets);
  const std::string_view json_part = std::string_view(section).substr(json);
  EXPECT_TRUE(contains(tag_part, "\n- <voice>text</voice>: speaks the text, sent as a voice note.\n"));
  EXPECT_TRUE(contains(tag_part, "\n- <remember>fact</remember>: stores a fact about this user.\n"));
  EXPECT_TRUE(contains(bracket_part, "\n- [REMEMBER:fact]: stores a fact about this user.\n"));
  EXPECT_TRUE(contains(bracket_part, "\n- [CORRECT:old:new]: replaces a stored fact.\n"));
  EXPECT_TRUE(contains(bracket_part, "\n- [SEARCH:query] or [WEB_SEARCH:query]: web search."));
  EXPECT_TRUE(
      contains(json_part, "\n- <setMemory>{\"itemId\": \"…\", \"value\": …}</setMemory>: stores an item.\n"));
  EXPECT_TRUE(contains(json_part, "\n- <getScheduledTasks/>: lists the scheduled tasks."));
  EXPECT_TRUE(contains(json_part, "<archiveItems>{\"items\": […]}</archiveItems>"));
  // No MCP servers configured: MCP tags are text (5.6), so they are not taught.
  EXPECT_FALSE(contains(section, "mcp_"));
}

TEST(PromptDoc, KeyLinesOfTheBuiltinSection) {
  const std::string section = prompt_section(Registry::builtin(), {});
  // Syntax with required parameters, the summary, then the parameters with the required ones marked.
  EXPECT_TRUE(
      contains(section,
               "\n- <react emoji=\"…\"/>: adds a reaction to a message.\n"
               "  emoji*: the emoji, as a character or a :name: · message: the id of an earlier message, "
               "shown as [message <id>] before it; default: the message being answered\n"
               "  Example: <react emoji=\"👍\"/>\n"));
  // Enum values (canonical, each once), booleans, and a rule over two parameters.
  EXPECT_TRUE(contains(section, "kind (one of auto|image|document|audio|voice|video): how to send the file"));
  EXPECT_TRUE(contains(section, "cleanup (true/false): delete the file after sending it"));
  EXPECT_TRUE(contains(section, "  Give channel and chat together or neither.\n"));
  // Defaults and types.
  EXPECT_TRUE(contains(section, "topK (integer): how many results; default 10"));
  EXPECT_TRUE(contains(section, "minScore (number): the lowest score returned; default 0"));
  EXPECT_TRUE(contains(section, "value* (any JSON): the value, any JSON"));
  EXPECT_TRUE(contains(section, "items* (array of strings): the ids of the items to archive"));
  EXPECT_TRUE(contains(section, "level* (integer): the level of detail"));
  // Exactly-one rules; a spelling's fixed and defaulted parameters (9.6).
  EXPECT_TRUE(contains(section, "  Give exactly one of delay or time.\n"));
  EXPECT_TRUE(contains(section, "  Give exactly one of id or timestamp.\n"));
  EXPECT_TRUE(contains(section,
                       "<sendTelegram>{\"text\": \"…\"}</sendTelegram>: sends a message to another chat "
                       "(allow-listed targets only). Always channel=telegram.\n"));
  EXPECT_TRUE(contains(section, "chat: the chat on that channel; default: the configured one"));
  // What happens to results.
  EXPECT_TRUE(
      contains(section, "web search. Write it last: your reply stops there; the result comes back to you."));
  EXPECT_TRUE(contains(section, "ranked search of the archive. The result comes back to you."));
  // A bracket spelling lists only the parameters its ARGS fill (3.3): no topK for SEARCH_EPISODIC.
  EXPECT_TRUE(contains(section,
                       "\n- [SEARCH_EPISODIC:query]: ranked search of the archive. The result comes back "
                       "to you.\n  query*: what to look for\n  Example: [SEARCH_EPISODIC:"));
  // The intro tells the model where directives count.
  EXPECT_TRUE(contains(section, "never inside code blocks or `inline code`"));
  // Without say mode the file tag is not taught: send-file has another spelling.
  EXPECT_FALSE(contains(section, "<file"));
  EXPECT_FALSE(contains(section, "<say"));
}

TEST(PromptDoc, SayModeTeachesSayBlocksFirstAndTheFileTag) {
  PromptOptions options;
  options.say_mode = true;
  const std::string section = prompt_section(Registry::builtin(), options);
  const std::size_t say =
      section.find("\n### Say blocks\nSay mode is on: only text inside <say>…</say> reaches");
  ASSERT_NE(say, std::string::npos);
  const std::string_view part = std::string_view(section).substr(say);
  EXPECT_TRUE(contains(part, "\n- <say>text</say>: one message to the user.\n  Example: <say>"));
  EXPECT_LT(part.find("<say>text</say>"), part.find("<file>path</file>"));
  EXPECT_TRUE(contains(part,
                       "\n- <file>path</file>: sends a file from an allowed folder. Sent with your last say "
                       "block.\n"));
  // send-file is still taught as a tag too, once.
  EXPECT_EQ(count(section, "\n- <send-file path=\"…\"/>"), 1u);
}

TEST(PromptDoc, McpIsTaughtOnlyWithConfiguredServers) {
  const std::string section = prompt_section(builtin_with_mcp(), {});
  EXPECT_TRUE(contains(section,
                       "\n- <mcp_SERVER_TOOL>{…}</mcp_SERVER_TOOL>: calls a tool on a configured MCP "
                       "server. SERVER is one of: github, brave-search;"));
  EXPECT_TRUE(
      contains(section, "  Example: <mcp_github_search>{\"query\": \"example\"}</mcp_github_search>\n"));
}

Registry builtin_with_mcp_tools() {
  RegistryOptions options;
  options.mcp_servers = {"everything"};
  options.mcp_tools = {
      {"everything", "echo", "Echoes back the input string\nmore detail",
       boost::json::parse(R"({"type": "object", "properties": {"message": {"type": "string"},
           "kind": {"enum": ["a", "b"]}}, "required": ["message"]})")
           .as_object()},
      {"everything", "get-sum", "", boost::json::parse(R"({"type": "object"})").as_object()}};
  return Registry::builtin(options);
}

TEST(PromptDoc, ConnectedMcpToolsAreTaughtOneALine) {
  const Registry registry = builtin_with_mcp_tools();
  const std::string section = prompt_section(registry, {});
  EXPECT_TRUE(contains(section,
                       "\n  - <mcp_everything_echo>{\"message\": string, \"kind\"?: \"a\" | \"b\"}"
                       "</mcp_everything_echo>: Echoes back the input string\n"))
      << section;
  EXPECT_TRUE(contains(section, "\n  - <mcp_everything_get-sum>{}</mcp_everything_get-sum>\n")) << section;
  EXPECT_FALSE(contains(section, "more detail"));  // the first line of a description only
  // The example is the first tool with its required arguments, and it parses as a valid mcp directive.
  EXPECT_TRUE(
      contains(section, "  Example: <mcp_everything_echo>{\"message\":\"example\"}</mcp_everything_echo>\n"))
      << section;
  for (const PromptExample& example : prompt_examples(registry, {})) {
    if (example.action == "mcp") expect_example_runs(registry, example, false);
  }
  EXPECT_EQ(mcp_tool_summary(registry.options().mcp_tools[0]),
            "everything/echo {\"message\": string, \"kind\"?: \"a\" | \"b\"}: Echoes back the input string");
}

TEST(PromptDoc, DeniedAndAllowedActionsFilterTheSection) {
  const Registry registry = Registry::builtin();
  const auto section = [&](std::vector<std::string> allowed, std::vector<std::string> denied) {
    PromptOptions o;
    o.allowed = std::move(allowed);
    o.denied = std::move(denied);
    return prompt_section(registry, o);
  };
  const std::string denied = section({}, {"react", "search"});
  EXPECT_FALSE(contains(denied, "<react"));
  EXPECT_FALSE(contains(denied, "[SEARCH:"));
  EXPECT_FALSE(contains(denied, "googleSearch"));
  EXPECT_TRUE(contains(denied, "[SEARCH_EPISODIC:"));

  const std::string allowed = section({"react", "calculate"}, {});
  EXPECT_TRUE(contains(allowed, "<react emoji="));
  EXPECT_TRUE(contains(allowed, "[CALCULATE:expression]"));
  EXPECT_TRUE(contains(allowed, "<calculate>expression</calculate>"));
  EXPECT_FALSE(contains(allowed, "### JSON bodies"));  // a group with nothing in it is left out
  EXPECT_EQ(count(allowed, "  Example: "), 3u);

  EXPECT_EQ(section({"react", "calculate"}, {"react", "calculate"}), "");  // denied wins
}

TEST(PromptDoc, DeterministicAndCompact) {
  const Registry registry = Registry::builtin();
  const std::string a = prompt_section(registry, {});
  const std::string b = prompt_section(Registry::builtin(), {});
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.back(), '\n');
  // The whole built-in catalogue in under 8 KiB: it goes into every system prompt.
  EXPECT_LT(a.size(), 8u * 1024) << a;
  PromptOptions say;
  say.say_mode = true;
  const std::string with_say = prompt_section(builtin_with_mcp(), say);
  EXPECT_LT(with_say.size(), 9u * 1024);
  std::cout << "[ prompt section: " << a.size() << " bytes; with say mode and MCP: " << with_say.size()
            << " bytes ]\n";
}

// A user-registered action gets generated examples that the parser accepts too.
TEST(PromptDoc, GeneratedExamplesOfUserActionsParse) {
  auto param = [](std::string name, ParamType type, bool required) {
    ParamSpec p;
    p.name = std::move(name);
    p.type = type;
    p.required = required;
    p.description = "the " + p.name;
    return p;
  };
  ActionSpec ticket;
  ticket.name = "open.ticket";
  ticket.summary = "opens a ticket";
  ParamSpec priority = param("priority", ParamType::Enum, true);
  priority.enum_values = {{"low", "low"}, {"high", "high"}};
  ParamSpec labels = param("labels", ParamType::Array, true);
  labels.element = ParamType::String;
  labels.non_empty = true;
  ticket.params = {param("title", ParamType::String, true),   std::move(priority),
                   param("count", ParamType::Integer, true),  param("ratio", ParamType::Number, true),
                   param("urgent", ParamType::Boolean, true), param("due", ParamType::Datetime, true),
                   param("in", ParamType::Duration, true),    std::move(labels),
                   param("extra", ParamType::Json, true)};
  ticket.body_param = "title";
  Spelling json_tag;
  json_tag.name = "openTicket";
  json_tag.body = parse::BodyKind::Json;
  Spelling text_tag;
  text_tag.name = "ticket";
  text_tag.body = parse::BodyKind::Text;
  ticket.spellings = {json_tag, text_tag};

  ActionSpec note;
  note.name = "note";
  note.summary = "takes a note";
  note.params = {param("count", ParamType::Integer, true), param("title", ParamType::String, true)};
  Spelling bracket;
  bracket.dialect = Dialect::Bracket;
  bracket.name = "TICKET";
  bracket.positional = {"count", "title"};
  note.spellings = {bracket};

  ActionSpec ping;
  ping.name = "ping";
  ping.summary = "pings a host";
  ping.params = {param("host", ParamType::String, false), param("ip", ParamType::String, false)};
  ping.rules = {{ParamRule::Kind::ExactlyOne, {"host", "ip"}}};
  Spelling none_tag;
  none_tag.name = "ping";
  ping.spellings = {none_tag};

  const Registry registry({ticket, ping, note});
  const std::vector<PromptExample> examples = prompt_examples(registry, {});
  ASSERT_EQ(examples.size(), 4u);
  for (const PromptExample& example : examples) expect_example_runs(registry, example, false);
  const std::string section = prompt_section(registry, {});
  EXPECT_TRUE(contains(section,
                       "\n- [TICKET:count:title]: takes a note.\n  count* (integer): the count · "
                       "title*: the title\n  Example: [TICKET:1:example]\n"));
  EXPECT_TRUE(contains(section, "\n- <ping host=\"…\"/>: pings a host.\n"));
  EXPECT_TRUE(contains(section, "  Example: <ping host=\"example\"/>\n"));
}

}  // namespace
}  // namespace sigil::catalog
