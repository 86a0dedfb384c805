#include "sigil/catalog/builtin_catalog.h"

#include <utility>

#include "sigil/catalog/spec_builders.h"
#include "sigil/text/media_types.h"

namespace sigil::catalog {
namespace {

using parse::BodyKind;

constexpr std::size_t KiB = 1024;

ParamSpec param(std::string name, ParamType type, bool required, std::string description,
                std::vector<std::string> aliases = {}) {
  return make_param(std::move(name), type, required, std::move(aliases), std::move(description));
}

ParamSpec required_string(std::string name, std::string description, std::vector<std::string> aliases = {}) {
  return param(std::move(name), ParamType::String, true, std::move(description), std::move(aliases));
}

ParamSpec optional_string(std::string name, std::string description, std::vector<std::string> aliases = {}) {
  return param(std::move(name), ParamType::String, false, std::move(description), std::move(aliases));
}

Spelling tag(std::string name, BodyKind body, std::size_t body_limit = 0) {
  return make_spelling(Dialect::Tag, std::move(name), body, body_limit);
}

// A text body of one line (2.8: a line break fails it), 4 KiB at the most: remember, calculate.
Spelling one_line_tag(std::string name) {
  Spelling s = tag(std::move(name), BodyKind::Text, 4 * KiB);
  s.single_line = true;
  return s;
}

Spelling bracket(std::string name, std::vector<std::string> positional) {
  return make_spelling(Dialect::Bracket, std::move(name), BodyKind::None, 0, std::move(positional));
}

ActionSpec action(std::string name, std::string summary) {
  ActionSpec a;
  a.name = std::move(name);
  a.summary = std::move(summary);
  return a;
}

// An action of one required string that a tag's body or a bracket's only argument fills.
ActionSpec body_action(std::string name, std::string summary, std::string param, std::string description,
                       std::vector<std::string> aliases = {}) {
  ActionSpec a = action(std::move(name), std::move(summary));
  a.params = {required_string(param, std::move(description), std::move(aliases))};
  a.body_param = std::move(param);
  return a;
}

ParamSpec file_kind() {
  ParamSpec p =
      param("kind", ParamType::Enum, false,
            "how to send the file: auto (by extension), image, document, audio, voice or video", {"mode"});
  for (const text::FileKindSpelling& s : text::file_kind_spellings())
    p.enum_values.push_back({std::string(s.written), std::string(text::to_string(s.kind))});
  p.enum_fallback = "auto";
  return p;
}

}  // namespace

std::vector<ActionSpec> builtin_actions() {
  std::vector<ActionSpec> out;
  // Each block fills in the spec it has just added (emplace_back's reference, used within the block only:
  // the next emplace_back may move the specs).

  {
    ActionSpec& a = out.emplace_back(action("react", "adds a reaction to a message"));
    a.params = {required_string("emoji", "the emoji, as a character or a :name:"),
                optional_string("message",
                                "the id of an earlier message, shown as [message <id>] before it; "
                                "default: the message being answered")};
    a.spellings = {tag("react", BodyKind::None)};
    a.delivers = true;
  }
  {
    ActionSpec& a = out.emplace_back(action("send-file", "sends a file from an allowed folder"));
    a.params = {required_string("path", "the file's path", {"file"}),
                optional_string("caption", "text sent with the file", {"text"}),
                file_kind(),
                param("cleanup", ParamType::Boolean, false, "delete the file after sending it"),
                optional_string("channel", "another channel to send it to (with chat)"),
                optional_string("chat", "another chat to send it to (with channel)")};
    a.body_param = "path";
    a.rules = {{ParamRule::Kind::AllOrNone, {"channel", "chat"}}};
    a.spellings = {tag("send-file", BodyKind::None), tag("file", BodyKind::Path, 4 * KiB)};
    a.delivers = true;
  }
  {
    ActionSpec& a = out.emplace_back(
        body_action("voice", "speaks the text, sent as a voice note", "text", "what to say"));
    a.spellings = {tag("voice", BodyKind::Text)};
    a.delivers = true;
  }
  {
    ActionSpec& a = out.emplace_back(
        action("send-message", "sends a message to another chat (allow-listed targets only)"));
    a.params = {required_string("channel", "the channel, e.g. telegram"),
                required_string("chat", "the chat on that channel"), required_string("text", "the message")};
    a.body_param = "text";
    Spelling telegram = tag("sendTelegram", BodyKind::Json);
    telegram.presets = {{"channel", boost::json::value("telegram"), true},
                        {"chat", boost::json::value(nullptr), false}};
    a.spellings = {tag("send-message", BodyKind::Text), std::move(telegram)};
    a.delivers = true;
  }
  {
    ActionSpec& a = out.emplace_back(
        body_action("say", "a message delivered in say mode (section 6)", "text", "what to say"));
    a.spellings = {tag("say", BodyKind::Content)};
  }
  {
    ActionSpec& a =
        out.emplace_back(body_action("remember", "stores a fact about this user", "fact", "the fact"));
    a.spellings = {bracket("REMEMBER", {"fact"}), one_line_tag("remember")};
    a.concurrency = Concurrency::SerialPerConversation;
  }
  {
    ActionSpec& a = out.emplace_back(action("forget", "removes a stored fact"));
    a.params = {required_string("fact", "the fact to remove")};
    a.spellings = {bracket("FORGET_THIS", {"fact"})};
    a.concurrency = Concurrency::SerialPerConversation;
  }
  {
    ActionSpec& a = out.emplace_back(action("correct", "replaces a stored fact"));
    a.params = {required_string("old", "the stored fact"), required_string("new", "what it becomes")};
    a.spellings = {bracket("CORRECT", {"old", "new"})};
    a.concurrency = Concurrency::SerialPerConversation;
  }
  {
    ActionSpec& a = out.emplace_back(action("setMemory", "stores an item"));
    a.params = {required_string("itemId", "the item's key"),
                param("value", ParamType::Json, true, "the value, any JSON"),
                param("expirationInMinutes", ParamType::Number, false, "minutes until it expires")};
    a.spellings = {tag("setMemory", BodyKind::Json)};
    a.concurrency = Concurrency::SerialPerConversation;
  }
  {
    ActionSpec& a =
        out.emplace_back(body_action("deleteItem", "deletes an item", "itemId", "the item's key"));
    a.spellings = {tag("deleteItem", BodyKind::Json)};
    a.concurrency = Concurrency::SerialPerConversation;
  }
  {
    ActionSpec& a = out.emplace_back(action("cleanupMemory", "deletes expired items"));
    a.spellings = {tag("cleanupMemory", BodyKind::None)};
    a.concurrency = Concurrency::SerialPerConversation;
  }
  {
    ActionSpec& a = out.emplace_back(action("archiveItems", "moves items into the searchable archive"));
    ParamSpec items = param("items", ParamType::Array, true, "the ids of the items to archive");
    items.non_empty = true;
    items.element = ParamType::String;
    a.params = {std::move(items)};
    a.spellings = {tag("archiveItems", BodyKind::Json)};
    a.concurrency = Concurrency::SerialPerConversation;
  }
  {
    ActionSpec& a = out.emplace_back(action("searchArchive", "ranked search of the archive"));
    ParamSpec top_k = param("topK", ParamType::Integer, false, "how many results");
    top_k.default_value = 10;
    ParamSpec min_score = param("minScore", ParamType::Number, false, "the lowest score returned");
    min_score.default_value = 0;
    a.params = {required_string("query", "what to look for"), std::move(top_k), std::move(min_score)};
    a.body_param = "query";
    a.spellings = {tag("searchArchive", BodyKind::Json), bracket("SEARCH_EPISODIC", {"query"})};
    a.result_to = ResultTo::Model;
  }
  {
    ActionSpec& a = out.emplace_back(action("request-tier", "stored messages at a level of detail"));
    a.params = {param("level", ParamType::Integer, true, "the level of detail"),
                required_string("content", "what to look up")};
    a.spellings = {bracket("REQUEST_TIER", {"level", "content"})};
    a.result_to = ResultTo::Model;
  }
  {
    ActionSpec& a =
        out.emplace_back(body_action("calculate", "safe arithmetic; the result replaces the directive",
                                     "expression", "the arithmetic expression"));
    a.spellings = {bracket("CALCULATE", {"expression"}), one_line_tag("calculate")};
    a.result_to = ResultTo::Inline;
  }
  {
    ActionSpec& a = out.emplace_back(body_action("search", "web search", "query", "what to search for"));
    a.spellings = {bracket("SEARCH", {"query"}), bracket("WEB_SEARCH", {"query"}),
                   tag("googleSearch", BodyKind::Json, 4 * KiB), tag("search", BodyKind::Json, 4 * KiB)};
    a.result_to = ResultTo::Model;
    a.interrupts = true;
  }
  {
    ActionSpec& a =
        out.emplace_back(body_action("fetch-page", "the text of a web page", "url", "the page's address"));
    a.spellings = {tag("webpageToText", BodyKind::Json, 4 * KiB), bracket("FETCH", {"url"})};
    a.result_to = ResultTo::Model;
    a.interrupts = true;
  }
  {
    // Generation takes a while (tens of seconds for GPT image models); the picture appears where the
    // directive stood, so the text after it waits (delivers).
    ActionSpec& a = out.emplace_back(
        action("createAIImage", "generates a picture from a description and shows it in the chat"));
    a.params = {
        required_string("prompt", "what the picture shows", {"description"}),
        optional_string("size", "1024x1024 (default), 1536x1024 or 1024x1536; or 1:1, 16:9, 9:16, 4:3")};
    a.body_param = "prompt";
    a.spellings = {tag("createAIImage", BodyKind::Json, 8 * KiB)};
    a.delivers = true;
    a.timeout = std::chrono::milliseconds(180'000);
  }
  {
    ActionSpec& a = out.emplace_back(body_action(
        "viewImage", "looks at a picture: you see it in your next turn", "url",
        "the picture's http(s) address, or a file's path in the file folders", {"path", "file", "image"}));
    a.spellings = {tag("viewImage", BodyKind::Json, 4 * KiB)};
    a.result_to = ResultTo::Model;
    a.interrupts = true;
  }
  {
    ActionSpec& a = out.emplace_back(
        action("scheduleTask", "a durable task that starts a turn with the message when due"));
    a.params = {required_string("message", "what the task says when it starts a turn"),
                param("delay", ParamType::Duration, false, "when, from now: 30m, 2h, 1.5d"),
                param("time", ParamType::Datetime, false, "when: YYYY-MM-DD HH:MM, optional :SS and offset")};
    a.body_param = "message";
    a.rules = {{ParamRule::Kind::ExactlyOne, {"delay", "time"}}};
    a.spellings = {tag("scheduleTask", BodyKind::Json)};
  }
  {
    ActionSpec& a = out.emplace_back(action("getScheduledTasks", "lists the scheduled tasks"));
    a.spellings = {tag("getScheduledTasks", BodyKind::Json)};
    a.result_to = ResultTo::Model;
  }
  {
    ActionSpec& a = out.emplace_back(action("deleteScheduledTask", "cancels a scheduled task"));
    a.params = {optional_string("id", "the task's id"),
                param("timestamp", ParamType::Integer, false, "the task's time, ms since the epoch")};
    a.rules = {{ParamRule::Kind::ExactlyOne, {"id", "timestamp"}}};
    a.spellings = {tag("deleteScheduledTask", BodyKind::Json)};
  }
  {
    ActionSpec& a = out.emplace_back(
        body_action("publishWebPage", "serves the page at a URL", "html", "the page's HTML"));
    a.spellings = {tag("publishWebPage", BodyKind::Markup, 256 * KiB)};
    a.result_to = ResultTo::Model;
  }
  {
    ActionSpec& a = out.emplace_back(action("command", "runs an operator-registered named command"));
    a.params = {required_string("name", "the command's name")};
    a.spellings = {bracket("COMMAND", {"name"}), bracket("EXECUTE", {"name"})};
  }
  {
    // Parameters are whatever the tool takes: validate_mcp handles them (5.6).
    ActionSpec& a = out.emplace_back(action("mcp", "calls a tool on a configured MCP server"));
    Spelling s;
    s.dialect = Dialect::Mcp;
    s.body = BodyKind::Json;
    a.spellings = {std::move(s)};
    a.body_limit = 256 * KiB;
    a.result_to = ResultTo::Model;
  }
  return out;
}

}  // namespace sigil::catalog
