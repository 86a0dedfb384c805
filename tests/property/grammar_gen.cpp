#include "grammar_gen.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>

#include "grammar_words.h"
#include "sigil/parse/summary.h"
#include "sigil/text/utf8.h"

namespace sigil::testing::gen {

namespace {

const std::vector<std::string> kAsciiWords = {
    "the",      "a",          "Hello",    "cats",       "I'll",
    "remember", "that",       "Sure",     "done",       "okay",
    "user",     "file",       "report",   "tea",        "coffee",
    "search",   "weather",    "tomorrow", "Paris",      "well-known",
    "e.g.",     "it's",       "you",      "we",         "react",
    "voice",    "say",        "think",    "actions",    "REMEMBER",
    "SEARCH",   "mcp_github", "no-reply", "NO",         "REPLY",
    "x",        "42",         "3.14",     "2024-05-01", "http://example.com/a?b=c",
    "a_b",      "C++",        "50%",      "$5",
};
const std::vector<std::string> kUnicodeWords = {
    "café",
    "naïve",
    "Ünïcödé",
    "日本語",
    "Привет",
    "שָׁלוֹם",
    "مرحبا",
    "👍",
    "🎉",
    "👨‍👩‍👧",
    "🇫🇷",
    "—",
    "…",
    "“quoted”",
    "it’s",
    "ß",
    "Ωmega",
    "𝔘𝔫𝔦",
    "e\xcc\x81",
    "\xef\xbb\xbf",
    "\xe2\x80\x8b",
};
const std::vector<std::string> kPunct = {".", ",",  ";", ":",  "!", "?",  ")",
                                         "(", "\"", "'", " -", "…", "!!", "?!"};
const std::vector<std::string> kEmoji = {"👍",  "🎉",  ":thumbsup:", "❤️",
                                         "🇫🇷", "ok", "+1",         "👨‍👩‍👧"};

// A tag spelling and the keys its attributes may use.
struct TagSpec {
  const char* name;
  char body;  // 'n' none, 't' text, 'l' single-line text, 'p' path, 'j' json, 'm' markup, 'x' unregistered
  std::vector<std::string> keys;
};
const std::vector<TagSpec> kTags = {
    {"react", 'n', {"emoji", "message"}},
    {"send-file", 'n', {"path", "file", "caption", "kind", "mode", "cleanup", "channel", "chat"}},
    {"cleanupMemory", 'n', {}},
    {"voice", 't', {}},
    {"send-message", 't', {"channel", "chat"}},
    {"remember", 'l', {}},
    {"calculate", 'l', {}},
    {"file", 'p', {"mode", "kind", "caption", "path"}},
    {"sendTelegram", 'j', {"chat", "text"}},
    {"setMemory", 'j', {"itemId", "value", "expirationInMinutes"}},
    {"deleteItem", 'j', {"itemId"}},
    {"archiveItems", 'j', {"items"}},
    {"searchArchive", 'j', {"query", "topK", "minScore"}},
    {"googleSearch", 'j', {"query"}},
    {"search", 'j', {"query"}},
    {"webpageToText", 'j', {"url"}},
    {"scheduleTask", 'j', {"message", "delay", "time"}},
    {"getScheduledTasks", 'j', {}},
    {"deleteScheduledTask", 'j', {"id", "timestamp"}},
    {"publishWebPage", 'm', {"html"}},
    {"createAIVideo", 'x', {"prompt"}},  // a provider-backed tag sigil has no provider for: text
    {"b", 'x', {"class"}},
    {"div", 'x', {"id"}},
    {"unknownCommand", 'x', {}},
    {"react-x", 'x', {"emoji"}},
    {"sayx", 'x', {}},
};
const std::vector<std::string> kBrackets = {
    "REMEMBER",        "FORGET_THIS", "CORRECT", "REQUEST_TIER", "CALCULATE", "SEARCH",   "WEB_SEARCH",
    "SEARCH_EPISODIC", "FETCH",       "COMMAND", "EXECUTE",      "Note",      "remember", "TODO"};
const std::vector<std::string> kJsonKeys = {
    "itemId",    "value", "query",  "url",  "message", "delay", "time",     "id",
    "timestamp", "items", "chat",   "text", "channel", "topK",  "minScore", "expirationInMinutes",
    "title",     "a",     "ItemID", "Query"};
const std::vector<std::string> kServers = {"brave-search", "github", "my_server", "context7", "Brave-Search",
                                           "GITHUB",       "gitlab", "brave",     "my",       "context"};
}  // namespace

// ------------------------------------------------------------------------------------------------ basics

std::size_t ReplyGenerator::below(std::size_t n) {
  if (n <= 1) return 0;
  return static_cast<std::size_t>(rng_() % n);
}

bool ReplyGenerator::chance(double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < p; }

std::string_view ReplyGenerator::weighted(
    std::initializer_list<std::pair<std::size_t, std::string_view>> choices) {
  std::size_t total = 0;
  for (const auto& c : choices) total += c.first;
  std::size_t k = below(total);
  for (const auto& [weight, text] : choices) {
    if (k < weight) return text;
    k -= weight;
  }
  return {};
}

std::string ReplyGenerator::random_case(std::string_view s) {
  std::string out(s);
  for (char& ch : out) {
    if (ch >= 'a' && ch <= 'z' && chance(0.5))
      ch = static_cast<char>(ch - 'a' + 'A');
    else if (ch >= 'A' && ch <= 'Z' && chance(0.5))
      ch = static_cast<char>(ch - 'A' + 'a');
  }
  return out;
}

std::string ReplyGenerator::tag_name(std::string_view name) {
  if (chance(0.08)) return random_case(name);
  return std::string(name);
}

std::string ReplyGenerator::word() {
  if (chance(0.2)) return pick(kUnicodeWords);
  return pick(kAsciiWords);
}

// ------------------------------------------------------------------------------------------------ prose

std::string ReplyGenerator::prose(int max_words) {
  std::string out;
  const std::size_t n = 1 + below(static_cast<std::size_t>(std::max(1, max_words)));
  for (std::size_t i = 0; i < n; ++i) {
    const std::string_view gap = weighted({{70, " "},
                                           {6, "  "},
                                           {4, "\t"},
                                           {6, "\n"},
                                           {4, "\r\n"},
                                           {4, "\n\n"},
                                           {2, "\n- "},
                                           {1, "\n1. "},
                                           {1, "\n> "},
                                           {2, " \n"}});
    if (i > 0) out += gap;
    std::string w = word();
    const std::size_t e = below(100);
    if (e < 5)
      w = "**" + w + "**";
    else if (e < 7)
      w = "_" + w + "_";
    else if (e < 8)
      w = "~~" + w + "~~";
    else if (e < 9)
      w = "*" + w;
    out += w;
    if (chance(0.15)) out += pick(kPunct);
  }
  return out;
}

// ------------------------------------------------------------------------------------------------ attributes

std::string ReplyGenerator::attr_value() {
  static const std::vector<std::string> values = {
      "👍",
      "🎉",
      ":thumbsup:",
      "hello world",
      "a > b",
      "x/y",
      "&amp;",
      "&#128077;",
      "&#x1F44D;",
      "&#0;",
      "&#xD800;",
      "&#99999999;",
      "&bogus;",
      "&lt;b&gt;",
      "",
      " ",
      "/tmp/a.png",
      "/tmp/report.pdf",
      "photo",
      "doc",
      "video",
      "weird",
      "2h",
      "30m",
      "2025-01-02 10:00",
      "true",
      "no",
      "telegram",
      "42",
      "-1",
      "1e3",
      "it's",
      "say \"hi\"",
      "café",
      "[SEARCH:x]",
      "<b>",
      "line\nbreak",
      "tab\there",
  };
  std::string v = pick(values);
  if (chance(0.01)) v = std::string(100 + below(9000), 'v');
  const std::size_t k = below(100);
  auto strip = [&](std::string s, std::string_view bad) {
    s.erase(std::remove_if(s.begin(), s.end(), [&](char c) { return bad.find(c) != std::string_view::npos; }),
            s.end());
    return s;
  };
  if (k < 45) {
    if (chance(0.9)) v = strip(v, "\"");  // else a raw quote inside: the value ends there
    if (chance(0.05)) v += "\\\"q\\\"";   // \" inside "…" is a literal quote
    return "\"" + v + "\"";
  }
  if (k < 65) return "'" + strip(v, "'") + "'";
  if (k < 72) return "\\\"" + strip(v, "\"\\") + "\\\"";
  if (k < 76) return "\\'" + strip(v, "'\\") + "\\'";
  if (k < 92) {
    std::string u = strip(v, " \t\r\n\"'<>/");
    return u.empty() ? std::string("x") : u;
  }
  if (k < 95) return "\"" + strip(v, "\"");  // unterminated
  if (k < 97) return "“" + v + "”";          // curly quotes are not quotes in tags
  return "\"" + strip(v, "\"") + "'";        // mismatched quotes
}

std::string ReplyGenerator::attrs(const std::vector<std::string>& keys) {
  static const std::vector<std::string> other = {"foo", "data-x", "a:b", "x.y", "Emoji", "MODE", "_k"};
  static const std::vector<std::string> ws = {" ", " ", " ", "  ", "\t", "\n", "\r\n", " \n "};
  std::string out;
  const std::size_t n = below(4);
  bool last_quoted = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(last_quoted && chance(0.15))) out += pick(ws);
    std::string key = (!keys.empty() && chance(0.85)) ? pick(keys) : pick(other);
    if (chance(0.05)) key = random_case(key);
    out += key;
    if (chance(0.08)) {  // a key without a value
      last_quoted = false;
      continue;
    }
    if (chance(0.1)) out += pick(ws);
    out += '=';
    if (chance(0.1)) out += ' ';
    std::string v = (key == "emoji" && chance(0.5)) ? "\"" + pick(kEmoji) + "\"" : attr_value();
    last_quoted = !v.empty() && (v.back() == '"' || v.back() == '\'');
    out += v;
  }
  if (chance(0.1)) out += pick(ws);
  return out;
}

// ------------------------------------------------------------------------------------------------ JSON

std::string ReplyGenerator::json_value(int depth) {
  auto string_lit = [&]() {
    static const std::vector<std::string> contents = {
        "a",
        "hello world",
        "café 👍",
        "/tmp/x",
        "30m",
        "2h",
        "2025-01-02 10:00",
        "https://example.com",
        "line\\nbreak",
        "quote \\\" in",
        "\\u00e9",
        "</setMemory>",
        "<b>x</b>",
        "it’s",
        "[REMEMBER:x]",
        "",
        "\\ud83d\\ude00",
        "tab\\t",
        "{not json}",
    };
    std::string s = pick(contents);
    const std::size_t k = below(100);
    if (k < 80) return "\"" + s + "\"";
    if (k < 88) return "'" + s + "'";
    if (k < 93) return "“" + s + "”";
    if (k < 97) return "\"" + s + "\nmore\"";  // a raw newline in a string
    return "\"" + s;                           // left open
  };
  const std::size_t k = below(depth >= 3 ? 5 : 9);
  switch (k) {
    case 0: {
      static const std::vector<std::string> nums = {
          "0", "1", "-1", "42", "3.5", "1e3", "10", "-0.5", "1700000000000", "007", "+1", "NaN"};
      return pick(nums);
    }
    case 1:
    case 2:
      return string_lit();
    case 3: {
      static const std::vector<std::string> lits = {"true", "false", "null", "True", "False", "None"};
      return pick(lits);
    }
    case 4:
      return string_lit();
    case 5:
    case 6:
    case 7: {
      std::string out = "{";
      const std::size_t n = below(4);
      for (std::size_t i = 0; i < n; ++i) {
        if (i > 0) out += chance(0.9) ? ", " : ",\n  ";
        if (chance(0.05)) out += "// note\n";
        if (chance(0.04)) out += "/* c */ ";
        const std::string key = pick(kJsonKeys);
        const std::size_t q = below(100);
        if (q < 80)
          out += "\"" + key + "\"";
        else if (q < 90)
          out += key;
        else
          out += "'" + key + "'";
        out += chance(0.9) ? ": " : ":";
        out += json_value(depth + 1);
      }
      if (n > 0 && chance(0.1)) out += ",";
      out += "}";
      return out;
    }
    default: {
      std::string out = "[";
      const std::size_t n = below(4);
      for (std::size_t i = 0; i < n; ++i) {
        if (i > 0) out += ", ";
        out += json_value(depth + 1);
      }
      if (n > 0 && chance(0.1)) out += ",";
      out += "]";
      return out;
    }
  }
}

// ------------------------------------------------------------------------------------------------ directives

std::string ReplyGenerator::broken(std::string s) {
  if (s.empty()) return s;
  static const std::vector<std::string> inserts = {
      "<",
      "\n",
      "\n\n",
      "\"",
      "'",
      "[REMEMBER:",
      "<voice>",
      "\n```\n",
      "<!--",
      "</",
      "`",
      "<react emoji=\"x\"/>",
      "]",
      ">",
      "/>",
      "<actions>",
      "\r",
      "\xff",
      std::string(1, '\0'),
      "<think>\n",
      "NO_REPLY",
      "&",
  };
  const std::size_t k = below(7);
  const std::size_t at = below(s.size() + 1);
  switch (k) {
    case 0:
      return s.substr(0, std::max<std::size_t>(1, at));  // truncated
    case 1:
      s.erase(std::min(at, s.size() - 1), 1);
      return s;  // a byte lost
    case 2:
    case 3:
      s.insert(at, pick(inserts));
      return s;  // something in the middle
    case 4:
      return s + s.substr(0, at);  // a repeated prefix
    case 5:
      return random_case(s);
    default: {
      const std::size_t gt = s.rfind('>');
      if (gt != std::string::npos) s.erase(gt, 1);
      return s;
    }
  }
}

std::string ReplyGenerator::tag_directive() {
  const TagSpec& t = pick(kTags);
  const std::string name = tag_name(t.name);
  std::string out = "<" + name + attrs(t.keys);
  auto close = [&]() -> std::string {
    const std::size_t k = below(100);
    if (k < 85) return "</" + name + ">";
    if (k < 90) return "</" + random_case(t.name) + " >";
    if (k < 94) return "</" + name + "\n>";
    if (k < 97) return "</" + std::string(t.name).substr(0, 3);  // partly written
    return "";                                                   // forgotten
  };
  auto self_close = [&]() -> std::string {
    static const std::vector<std::string> forms = {"/>", " />", "/ >", "/>"};
    return pick(forms);
  };
  switch (t.body) {
    case 'n': {
      const std::size_t k = below(100);
      if (k < 55) return out + self_close();
      if (k < 85) return out + ">";
      return out + ">" + (chance(0.5) ? " " : "") + "</" + name + ">";
    }
    case 't':
    case 'l':
    case 'x': {
      if (chance(0.15)) return out + self_close();
      std::string body = t.body == 'l' ? prose(6) : prose(12);
      if (t.body == 'l') std::replace(body.begin(), body.end(), '\n', ' ');
      if (chance(0.1)) body = "&amp; &lt;b&gt; &#128077; " + body;
      if (chance(0.06)) body += " </actions> ";
      if (chance(0.05)) body += " </say>";
      if (chance(0.06)) body = "<" + name + ">" + body;  // a repeated opener (2.5)
      if (chance(0.05)) body += " <b>bold</b> ";
      if (t.body == 'l' && std::string_view(t.name) == "calculate") body = chance(0.5) ? "342*15" : body;
      return out + ">" + body + close();
    }
    case 'p': {
      if (chance(0.3)) return out + self_close();
      std::string path = chance(0.8) ? "/tmp/report.pdf" : "/tmp/my file.png";
      if (chance(0.15)) path = "\n  " + path + "\n";
      if (chance(0.08)) path += "\nsecond line";
      return out + ">" + path + close();
    }
    case 'j': {
      const std::size_t k = below(100);
      if (k < 15) return out + self_close();
      std::string body;
      if (k < 25)
        body = chance(0.5) ? "" : "  \n ";
      else if (k < 35)
        body = prose(5);  // a json spelling read as text (5.2)
      else
        body = json_directive();
      return out + ">" + body + close();
    }
    case 'm': {
      std::string html = "<html><body><p>" + prose(6) + "</p><script>if (a<b) {}</script></body></html>";
      if (chance(0.1)) html += "\n<!-- c --> [REMEMBER:x] <react emoji=\"x\"/>";
      return out + ">" + html + close();
    }
  }
  return out + ">";
}

// A json body (without the tags).
std::string ReplyGenerator::json_directive() {
  std::string v = chance(0.3) ? json_value(0) : [&] {
    std::string o = "{\"" + pick(kJsonKeys) + "\": " + json_value(1);
    if (chance(0.6)) o += ", \"" + pick(kJsonKeys) + "\": " + json_value(1);
    if (chance(0.1)) o += ",";
    return o + "}";
  }();
  const std::size_t k = below(100);
  if (k < 8) {  // missing closing brackets
    while (!v.empty() && (v.back() == '}' || v.back() == ']') && chance(0.7)) v.pop_back();
  } else if (k < 14) {
    v = "```json\n" + v + "\n```\n";
  } else if (k < 18) {
    v = "\n  " + v + "\n";
  } else if (k < 22) {
    v += chance(0.5) ? json_value(0) : ", " + json_value(0);  // several values
  } else if (k < 25) {
    v += " and then some text";  // something else after the value
  } else if (k < 27) {
    v += "\nnot json at all\n";
  } else if (k < 29) {
    v = std::string(1, "{[\"'"[below(4)]) + prose(3);
  }
  return v;
}

std::string ReplyGenerator::mcp_directive() {
  std::string server = pick(kServers);
  if (chance(0.1)) server = random_case(server);
  static const std::vector<std::string> tools = {"create_issue", "search",      "get-docs", "web_search", "x",
                                                 "list.repos",   "resolve:lib", "T"};
  std::string tool = chance(0.03) ? std::string(120 + below(12), 't') : pick(tools);
  if (chance(0.03)) tool.clear();
  const std::string name = "mcp_" + server + "_" + tool;
  std::string out = "<" + name + attrs({"query", "owner", "repo"});
  if (chance(0.2)) return out + (chance(0.8) ? "/>" : ">");
  std::string body = chance(0.8) ? json_directive() : prose(4);
  std::string close = "</" + name + ">";
  const std::size_t k = below(100);
  if (k < 5)
    close = "</" + random_case(name) + ">";
  else if (k < 8)
    close = "</mcp_" + server + "_other>";
  else if (k < 11)
    close = "</" + name.substr(0, name.size() / 2);
  else if (k < 13)
    close.clear();
  return out + ">" + body + close;
}

std::string ReplyGenerator::bracket_directive() {
  std::string name = pick(kBrackets);
  if (chance(0.03)) name = random_case(name);
  std::string args = prose(5);
  std::replace(args.begin(), args.end(), ']', ')');
  const std::size_t k = below(100);
  if (k < 10)
    args = "a [b] c";
  else if (k < 14)
    args = "outer [SEARCH:inner] tail";
  else if (k < 18)
    args = "2:" + args;
  else if (k < 22)
    args = "old:new:more";
  else if (k < 25)
    args = "";
  else if (k < 28)
    args = "line one\nline two";
  else if (k < 30)
    args = "para\n\nbreak";
  else if (k < 32)
    args = "342*15";
  std::string out = "[" + name;
  const std::size_t f = below(100);
  if (f < 5) return out + "]";                // [NAME]
  if (f < 8) return out + "：" + args + "]";  // full-width colon
  out += ":" + args;
  if (f < 14) return out;                             // unclosed
  if (f < 18) return out + "](https://example.com)";  // a link
  if (f < 21) return out + "]]";
  return out + "]";
}

std::string ReplyGenerator::directive() {
  const std::size_t k = below(100);
  if (k < 45) return tag_directive();
  if (k < 65) return bracket_directive();
  if (k < 80) return mcp_directive();
  if (k < 85) return "<" + tag_name("react") + " emoji=\"" + pick(kEmoji) + "\"/>";
  if (k < 90) return "**<react emoji=\"👍\"/>**";
  if (k < 95) return "</" + tag_name(pick(kTags).name) + ">";  // an orphan close tag
  return broken(tag_directive());
}

// ------------------------------------------------------------------------------------------------ the rest

std::string ReplyGenerator::say_block() {
  const std::string say = tag_name("say");
  const std::size_t k = below(100);
  if (k < 8) return "<" + say + "/>";
  if (k < 13) return "<" + say + "> </" + say + ">";
  if (k < 20) return "<" + say + ">outer <" + say + ">inner</" + say + "> tail</" + say + ">";
  std::string inner = prose(10);
  if (chance(0.3)) inner += " " + directive() + " " + prose(4);
  if (chance(0.05)) inner = sentinel();
  if (chance(0.1)) return "<" + say + ">" + inner;  // still open at the end (or at the next say)
  if (chance(0.05)) return "<" + say + " foo=\"1\">" + inner + "</" + say + ">";
  return "<" + say + ">" + inner + "</" + say + ">";
}

std::string ReplyGenerator::sentinel() {
  static const std::vector<std::string> forms = {
      "<no-reply/>",
      "<no_reply/>",
      "<NO-REPLY />",
      "<no-reply>",
      "<no-reply></no-reply>",
      "NO_REPLY",
      "NO_MESSAGE",
      "**NO_REPLY**",
      "`NO_REPLY`",
      "\"NO_REPLY\".",
      "( NO_REPLY )",
      "NO_REPLY - busy",
      "NO_REPLYing",
      "NO_REPLY is what I say",
      "NO_REPLY3",
      "____NO_REPLY____",
      "no_reply",
      "<No_Reply / >",
  };
  std::string s = pick(forms);
  if (chance(0.5)) s = "\n" + s;
  if (chance(0.5)) s += "\n";
  return s;
}

std::string ReplyGenerator::hidden_region() {
  const std::string name = pick(kHidden);
  std::string inner = prose(8);
  if (chance(0.4)) inner += " " + directive();
  if (chance(0.1)) inner += " NO_REPLY <no-reply/>";
  const std::size_t k = below(100);
  const std::string close = "</" + (chance(0.8) ? name : pick(kHidden)) + ">";
  if (k < 40) return "\n<" + name + ">\n" + inner + "\n" + close + "\n";
  if (k < 55) return "\n  <" + name + ">  \r\n" + inner + close;
  if (k < 70) return "\n<" + name + ">" + inner + close + " after\n";
  if (k < 78) return "\n<" + name + ">\n" + inner;         // never closed: hides the rest
  if (k < 88) return " mid <" + name + "> line " + close;  // text
  if (k < 94) return close;                                // an orphan
  return "<" + name + "/>";
}

std::string ReplyGenerator::comment() {
  const std::size_t k = below(100);
  std::string inner = chance(0.5) ? prose(4) : directive();
  if (k < 45) return "<!--" + inner + "-->";
  if (k < 70) return "<![CDATA[" + inner + "]]>";
  if (k < 78) return "<!--" + inner;  // unclosed
  if (k < 84) return "<!---->";
  if (k < 88) return "<!-->";
  if (k < 92) return "<![CDATA[" + inner;
  if (k < 96) return "<!- not -> <![CDAT";
  return "<!-- a -- b --!>";
}

std::string ReplyGenerator::code() {
  const std::size_t k = below(100);
  std::string inner = chance(0.6) ? directive() : prose(5);
  if (k < 45) {
    static const std::vector<std::string> prefixes = {"", "", "  ", "\t", "> ", "- ", "1. ", "   > - "};
    const std::string prefix = pick(prefixes);
    const char f = chance(0.75) ? '`' : '~';
    const std::string fence(3 + below(3), f);
    std::string out = "\n" + prefix + fence + (chance(0.5) ? "xml" : "") + "\n" + inner + "\n";
    if (chance(0.3)) out += directive() + "\n";
    if (chance(0.85))
      out += prefix + fence + (chance(0.2) ? std::string(1, f) : "") + (chance(0.1) ? "  " : "") + "\n";
    return out;
  }
  if (k < 80) {
    const std::string ticks(1 + below(3), '`');
    if (chance(0.1)) return ticks + inner;  // unclosed span: ends at the line end
    return ticks + inner + ticks;
  }
  if (k < 90) return "``a ` b`` " + inner;
  return "`" + inner + "\n" + inner + "`";
}

std::string ReplyGenerator::wrapper() {
  const std::string a = tag_name("actions");
  const std::size_t k = below(100);
  if (k < 20) return "<" + a + ">";
  if (k < 35) return "</" + a + ">";
  if (k < 40) return "<" + a + "/>";
  if (k < 70)
    return "<" + a + ">\n" + directive() + "\n" + (chance(0.5) ? directive() + "\n" : "") + "</" + a + ">";
  if (k < 85) return "<" + a + "><thumbsup/> <unknown emoji=\"x\">" + (chance(0.5) ? "</" + a + ">" : "");
  return "<" + a + " id=\"1\">\n<" + a + ">" + prose(3) + "</" + a + ">";
}

std::string ReplyGenerator::noise() {
  static const std::vector<std::string> bits = {
      "<",
      "[",
      "&",
      "&amp",
      "&amp;",
      "\"",
      "'",
      "\\",
      "</",
      "< react",
      "<>",
      "[]",
      "]",
      ">",
      "<<",
      "[[",
      "<=",
      "a<b",
      "x[0]",
      "<3",
      "\xff",
      "\xfe",
      "\xc0\xaf",
      "\xe0\x80",
      "\xed\xa0\x80",
      "\xf4\x90\x80\x80",
      "\xc3",
      "\xe2\x82",
      "\x80",
      std::string(1, '\0'),
      std::string("a\0b", 3),
      "\r",
      "\t\t",
      "\x1b[31m",
      "</>",
      "<!",
      "<![",
      "[!",
      "<?xml?>",
      "<!DOCTYPE html>",
      "&#",
      "&#x;",
      "***",
      "___",
      "~~~~",
      "`",
      "``",
  };
  std::string s = pick(bits);
  if (chance(0.003)) s = std::string(4000 + below(400), ' ');  // around the whitespace limit
  if (chance(0.2)) s += pick(bits);
  return s;
}

std::string ReplyGenerator::reply(int max_items) {
  static const std::vector<std::string> seps = {"", " ", " ", " ", "\n", "\n\n", "\r\n", "\t", "  "};
  std::string out;
  const std::size_t n = 1 + below(static_cast<std::size_t>(std::max(1, max_items)));
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) out += pick(seps);
    const std::size_t k = below(100);
    if (k < 34)
      out += prose();
    else if (k < 56)
      out += directive();
    else if (k < 60)
      out += wrapper();
    else if (k < 66)
      out += say_block();
    else if (k < 68)
      out += sentinel();
    else if (k < 72)
      out += hidden_region();
    else if (k < 76)
      out += comment();
    else if (k < 84)
      out += code();
    else if (k < 92)
      out += noise();
    else
      out += broken(directive());
  }
  const std::size_t m = below(100);
  if (m < 10 && !out.empty()) {
    out.resize(below(out.size()) + 1);  // a truncation at a random point
  } else if (m < 15 && !out.empty()) {
    for (std::size_t j = 0, c = 1 + below(3); j < c; ++j)
      out[below(out.size())] = static_cast<char>(below(256));  // random byte flips
  }
  return out;
}

}  // namespace sigil::testing::gen
