#include "grammar_gen.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>

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
const std::vector<std::string> kHidden = {"think", "thinking", "reasoning", "thought", "THINK", "Thinking"};

bool safe_prose_byte(unsigned char c) {
  return c != '<' && c != '>' && c != '[' && c != ']' && c != '`' && c != '~' && c != '&' && c != '\\';
}

}  // namespace

// ------------------------------------------------------------------------------------------------ basics

std::size_t ReplyGenerator::below(std::size_t n) {
  if (n <= 1) return 0;
  return static_cast<std::size_t>(rng_() % n);
}

bool ReplyGenerator::chance(double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < p; }

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
    const std::size_t k = below(100);
    if (i > 0) {
      if (k < 70)
        out += ' ';
      else if (k < 76)
        out += "  ";
      else if (k < 80)
        out += '\t';
      else if (k < 86)
        out += '\n';
      else if (k < 90)
        out += "\r\n";
      else if (k < 94)
        out += "\n\n";
      else if (k < 96)
        out += "\n- ";
      else if (k < 97)
        out += "\n1. ";
      else if (k < 98)
        out += "\n> ";
      else
        out += " \n";
    }
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

// ------------------------------------------------------------------------------------------------ marked
// replies

namespace {

class Marked {
 public:
  Marked(ReplyGenerator& g, bool say_mode) : g_(g), say_mode_(say_mode) {}

  std::string marker() {
    std::string m =
        "XQZ" + std::to_string(100000 + g_.below(900000)) + "n" + std::to_string(m_.markers.size());
    m_.markers.push_back(m);
    return m;
  }

  // Prose that holds nothing that could be markup, a sentinel, a list marker or code.
  std::string safe_prose(int max_words, bool one_line = false) {
    static const std::vector<std::string> words = {
        "the",        "Hello",
        "cats",       "I'll",
        "remember",   "that",
        "Sure",       "done",
        "okay",       "user",
        "file",       "tea",
        "weather",    "Paris",
        "well-known", "it's",
        "we",         "react",
        "voice",      "say",
        "think",      "actions",
        "REMEMBER",   "SEARCH",
        "mcp",        "reply",
        "NO",         "café",
        "naïve",      "日本語",
        "Привет",     "👍",
        "🎉",          "👨‍👩‍👧",
        "🇫🇷",         "—",
        "“quoted”",   "it’s",
        "ßig",        "(aside)",
        "e.g.",       "http://example.com/a?b=c",
        "a/b",        "x=y",
        "50%",
    };
    static const std::vector<std::string> punct = {".", ",", ";", ":", "!", "?", "\"", "'", "…", ")"};
    std::string out;
    const std::size_t n = 1 + g_.below(static_cast<std::size_t>(max_words));
    for (std::size_t i = 0; i < n; ++i) {
      if (i > 0) {
        const std::size_t k = g_.below(100);
        if (one_line || k < 75)
          out += ' ';
        else if (k < 82)
          out += "  ";
        else if (k < 88)
          out += '\n';
        else if (k < 93)
          out += "\r\n";
        else
          out += "\n\n";
      }
      std::string w = g_.pick(words);
      if (i == 0 && w[0] == '(') w = "so " + w;  // `[X:y](` would be a Markdown link (3.4)
      const std::size_t e = g_.below(100);
      if (e < 4)
        w = "**" + w + "**";
      else if (e < 6)
        w = "_" + w + "_";
      out += w;
      if (g_.chance(0.12)) out += g_.pick(punct);
    }
    return out;
  }

  void text(const std::string& s) {
    m_.reply += s;
    (say_mode_ && !in_say_ ? m_.hidden_prose : m_.visible_prose) += s;
  }
  void markup(const std::string& s) { m_.reply += s; }
  void sep() {
    static const std::vector<std::string> seps = {" ", " ", " ", "\n", "\n\n", "\r\n", "  ", "\t", ""};
    markup(g_.pick(seps));
  }

  std::string quoted(const std::string& v) {
    switch (g_.below(6)) {
      case 0:
        return "'" + v + "'";
      case 1:
        return "\\\"" + v + "\\\"";
      case 2:
        return "\\'" + v + "\\'";
      case 3:
        return v;  // unquoted: markers have no WS, quotes or angle brackets
      default:
        return "\"" + v + "\"";
    }
  }
  std::string self_close() {
    static const std::vector<std::string> forms = {"/>", " />", "/ >", "/>"};
    return g_.pick(forms);
  }

  // One well-formed directive with a marker in it. Sets `interrupts` for interrupting ones.
  std::string directive(bool* interrupts) {
    *interrupts = false;
    const std::string m = marker();
    switch (g_.below(46)) {
      case 0:
        return "<react emoji=" + quoted(m) + self_close();
      case 1:
        return "<react emoji=" + quoted(m) + ">";
      case 2:
        return "<REACT Emoji=\"👍\" message=" + quoted(m) + "/>";
      case 3:
        return "<react message=" + quoted(m) + "/>";  // invalid (no emoji), still removed
      case 4:
        return "<send-file path=\"/tmp/" + m + ".png\" mode=\"photo\"/>";
      case 5:
        return "<voice>" + m + " " + safe_prose(8) + "</voice>";
      case 6:
        return "<voice><voice>" + m + "</voice>";
      case 7:
        return "<remember>" + m + " " + safe_prose(5, true) + "</remember>";
      case 8:
        return "<calculate>" + m + "</calculate>";
      case 9:
        return "[REMEMBER:" + m + " " + safe_prose(4, true) + "]";
      case 10:
        return "[FORGET_THIS:" + m + "]";
      case 11:
        return "[CORRECT:" + m + ":new value]";
      case 12:
        return "[REQUEST_TIER:2:" + m + "]";
      case 13:
        return "[CALCULATE:" + m + "]";
      case 14:
        return "[COMMAND:" + m + "]";
      case 15:
        return "[REMEMBER:a [" + m + "] b]";
      case 16:
        return "<setMemory>{\"itemId\":\"" + m + "\",\"value\":1}</setMemory>";
      case 17:
        return "<setMemory>{itemId: '" + m + "', value: True,}</setMemory>";
      case 18:
        return "<setMemory>\n```json\n{\"itemId\": \"" + m + "\", \"value\": [1, 2]}\n```\n</setMemory>";
      case 19:
        return "<setMemory>{\"itemId\": \"" + m + "\", \"value\": [1, {\"a\": 2</setMemory>";
      case 20:
        return "<archiveItems>[\"" + m + "\"]</archiveItems>";
      case 21:
        return "<scheduleTask>{\"message\":\"" + m + "\",\"delay\":\"30m\"}</scheduleTask>";
      case 22:
        return "<sendTelegram>{\"chat\":\"1\",\"text\":\"" + m + "\"}</sendTelegram>";
      case 23:
        return "<send-message channel=\"telegram\" chat=\"42\">" + m + " " + safe_prose(5) +
               "</send-message>";
      case 24:
        return "<file mode=\"doc\">/tmp/" + m + ".pdf</file>";
      case 25:
        return "<publishWebPage><html><p>" + m + "</p><script>a<b && [x]</script></html></publishWebPage>";
      case 26:
        return "<mcp_github_create_issue>{\"title\":\"" + m + "\"}</mcp_github_create_issue>";
      case 27:
        return "<mcp_Brave-Search_web_search query=" + quoted(m) + "/>";
      case 28:
        return "<mcp_my_server_tool>{\"a\": \"" + m + "\", 'b': None}</mcp_my_server_tool>";
      case 29:
        return "<mcp_context7_get-docs>\n{\"lib\": \"" + m + "\"}\n</mcp_context7_get-docs>";
      case 30:
        return "**<react emoji=\"" + m + "\"/>**";
      case 31:
        return "<deleteScheduledTask>{\"id\":\"" + m + "\"}</deleteScheduledTask>";
      case 32:
        return "<getScheduledTasks note=\"" + m + "\"/>";
      case 33:
        return "<setMemory>{\"itemId\":\"" + m + "\",\"value\":\"a </setMemory> b\"}</setMemory>";
      case 34:
        return "<setMemory>{\"itemId\":\"" + m +
               "\",\"value\":1}, {\"itemId\":\"b\",\"value\":2}\n</setMemory>";
      case 35:
        return "<react\n  emoji=" + quoted(m) + "\n  message=\"x\"\n/>";
      case 36:
        return "<file>\n  /tmp/" + m + ".pdf\n</file>";
      case 37:
        return "<voice>" + m + "</VOICE >";
      case 38:
        return "<send-file path=" + quoted("/tmp/" + m) + " caption='it is \"here\"'/>";
      case 39:
        return "<actions><actions>" + std::string("<react emoji=\"") + m + "\"/></actions></actions>";
      case 40:
        return "<deleteItem>\n```json\n{\"itemId\": \"" + m + "\"}\n```\n</deleteItem>";
      case 41:
        return "<searchArchive>{query: \"" + m + "\", topK: 3, /* c */ minScore: 0.5,}</searchArchive>";
      case 42:
        return "[CORRECT:\n" + m + "\n:new\n]";
      case 43:
        return "<mcp_GitHub_list_repos owner=\"" + m + "\" />";
      case 44:
        return "<react emoji=\"&#128077;\" message=\"" + m + " &amp; &lt;b&gt;\"/>";
      default:
        *interrupts = true;
        switch (g_.below(4)) {
          case 0:
            return "[SEARCH:" + m + "]";
          case 1:
            return "<googleSearch>{\"query\":\"" + m + "\"}</googleSearch>";
          case 2:
            return "[FETCH:https://" + m + ".example.com]";
          default:
            return "<search query=\"" + m + "\"/>";
        }
    }
  }

  // Anything at all, for inside a hidden region: no close tag can survive.
  std::string junk() {
    std::string s = g_.reply(6);
    for (std::size_t at = s.find("</"); at != std::string::npos; at = s.find("</", at + 3))
      s.insert(at + 1, " ");
    return marker() + " " + s + " " + marker();
  }

  void item() {
    const std::size_t k = g_.below(100);
    if (k < 45) {
      text(safe_prose(12));
    } else if (k < 75) {
      bool interrupts = false;
      std::string d = directive(&interrupts);
      if (interrupts && g_.chance(0.7)) d = directive(&interrupts);  // keep most replies whole
      if (interrupts && g_.chance(0.7)) d = directive(&interrupts);
      markup(d);
      if (interrupts) m_.complete = false;
    } else if (k < 81) {
      if (!in_say_) markup("\n<" + g_.pick(kHidden) + ">\n" + junk() + "\n</" + g_.pick(kHidden) + ">\n");
    } else if (k < 87) {
      bool interrupts = false;
      std::string d = "<actions>\n";
      for (std::size_t i = 0, n = 1 + g_.below(3); i < n; ++i) {
        std::string one = directive(&interrupts);
        // Emphasis is text and `</actions>` is not a directive: either would close the window in which
        // unregistered tags are removed (2.6).
        while (one.compare(0, 2, "**") == 0 || one.compare(0, 9, "<actions>") == 0)
          one = directive(&interrupts);
        if (interrupts) m_.complete = false;
        d += one + "\n";
      }
      if (g_.chance(0.4)) d += "<thumbsup note=\"" + marker() + "\"/>\n";
      markup(d + "</actions>");
    } else if (k < 92) {
      if (g_.chance(0.6))
        markup("<!-- " + marker() + " <react emoji=\"x\"/> [REMEMBER:y] -->");
      else
        markup("<![CDATA[ " + marker() + " <voice>x</voice> ]]>");
    } else if (k < 95) {
      static const std::vector<std::string> orphans = {
          "</react>", "</voice>", "</actions>", "</remember>", "</think>", "</mcp_github_create_issue>",
          "</REACT >"};
      markup(!say_mode_ && g_.chance(0.15) ? std::string("</say>") : g_.pick(orphans));
    } else if (k < 96) {
      static const std::vector<std::string> sentinels = {"<no-reply/>", "<NO_REPLY />", "<no_reply>",
                                                         "<no-reply></no-reply>"};
      markup(g_.pick(sentinels));
      m_.complete = false;
    } else if (say_mode_) {
      if (in_say_ && g_.chance(0.2)) {
        markup("<say>");  // a say tag inside a say block is removed (6.2)
      } else if (!in_say_) {
        markup("<say>");
        in_say_ = true;
      } else {
        markup("</say>");
        in_say_ = false;
      }
    } else {
      markup("<say>");  // say mode off: removable markup, the content is ordinary text
      text(safe_prose(6));
      markup("</say>");
    }
  }

  MarkedReply take() { return std::move(m_); }
  MarkedReply& m() { return m_; }
  bool in_say_ = false;

 private:
  ReplyGenerator& g_;
  bool say_mode_;
  MarkedReply m_;
};

}  // namespace

MarkedReply marked_reply(ReplyGenerator& g, bool say_mode, int items) {
  Marked b(g, say_mode);
  const std::size_t n = 1 + g.below(static_cast<std::size_t>(std::max(1, items)));
  if (g.chance(0.1)) b.markup("<think>\n" + b.junk() + "\n</think>\n");  // hidden at the very start
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) b.sep();
    b.item();
  }
  if (b.in_say_ && g.chance(0.5)) b.markup("</say>");
  MarkedReply m = b.take();
  for (char ch : m.visible_prose + m.hidden_prose)
    if (!safe_prose_byte(static_cast<unsigned char>(ch))) std::abort();  // the generator's own invariant
  return m;
}

// ------------------------------------------------------------------------------------------------ chunkings

std::vector<std::size_t> random_chunking(std::mt19937_64& rng, std::size_t size, std::size_t max) {
  std::vector<std::size_t> out;
  std::size_t covered = 0;
  while (covered < size) {
    if (rng() % 16 == 0) out.push_back(0);
    const std::size_t n = std::min<std::size_t>(1 + rng() % max, size - covered);
    out.push_back(n);
    covered += n;
  }
  return out;
}

std::vector<std::size_t> fixed_chunking(std::size_t size, std::size_t n) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < size; i += n) out.push_back(std::min(n, size - i));
  return out;
}

std::string c_literal(std::string_view s, std::size_t max) {
  std::string out = "\"";
  const std::size_t n = std::min(s.size(), max);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (c >= 0x20 && c < 0x7F) {
          out += static_cast<char>(c);
        } else {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\%03o", c);
          out += buf;
        }
    }
  }
  out += "\"";
  if (n < s.size()) out += " /* … " + std::to_string(s.size() - n) + " more bytes */";
  return out;
}

std::string describe_chunks(const std::vector<std::size_t>& sizes) {
  if (sizes.empty()) return "whole";
  std::string out = "{";
  for (std::size_t i = 0; i < sizes.size() && i < 200; ++i) out += (i ? "," : "") + std::to_string(sizes[i]);
  if (sizes.size() > 200) out += ",…";
  return out + "}";
}

std::uint64_t property_seed(std::uint64_t fallback) {
  const char* s = std::getenv("SIGIL_PROPERTY_SEED");
  return s != nullptr && *s != '\0' ? std::strtoull(s, nullptr, 0) : fallback;
}

int property_cases(int fallback) {
  const char* s = std::getenv("SIGIL_PROPERTY_CASES");
  return s != nullptr && *s != '\0' ? std::atoi(s) : fallback;
}

// ------------------------------------------------------------------------------------------------ the
// harness

namespace {

const parse::CompiledGrammar& grammar_for(const std::vector<std::string>& servers) {
  struct Compiled {
    catalog::Registry registry;
    parse::CompiledGrammar grammar{registry};
    explicit Compiled(catalog::Registry r) : registry(std::move(r)) {}
  };
  static std::map<std::vector<std::string>, std::unique_ptr<Compiled>> cache;
  auto& slot = cache[servers];
  if (!slot) {
    catalog::RegistryOptions ro;
    ro.mcp_servers = servers;
    slot = std::make_unique<Compiled>(catalog::Registry::builtin(ro));
  }
  return slot->grammar;
}

class LogSink final : public parse::SummarySink {
 public:
  LogSink(EventLog& log, std::string_view reply) : log_(log), reply_(reply) {}
  std::uint64_t fed = 0;  // set by the feeding loop: bytes fed so far, the current chunk included

  void on_text(std::string_view text, bool hidden) override {
    SummarySink::on_text(text, hidden);
    check_open("text");
    if (!text::is_valid_utf8(text)) problem("a text event is not valid UTF-8: " + c_literal(text, 200));
    (hidden ? log_.hidden : log_.visible).append(text);
    log_.text_events.emplace_back(text);
    log_.text_hidden.push_back(hidden);
  }
  void on_directive(const parse::DirectiveEvent& d) override {
    SummarySink::on_directive(d);
    check_open("directive");
    boost::json::object o = parse::directive_event_json(d);
    o["spelling"] = d.spelling;
    o["interrupts"] = d.interrupts;
    log_.events.push_back(boost::json::serialize(o));
    log_.directives.push_back(d);
    log_.directive_fed.push_back(fed);
    if (fed != EventLog::kAtFinish && d.span_end > fed)
      problem("directive " + d.action + " span ends at " + std::to_string(d.span_end) + " but only " +
              std::to_string(fed) + " bytes were fed");
    if (d.span_begin >= d.span_end || d.span_end > reply_.size())
      problem("directive span [" + std::to_string(d.span_begin) + ", " + std::to_string(d.span_end) +
              ") is outside the reply (" + std::to_string(reply_.size()) + " bytes)");
    else if (reply_[d.span_begin] != '<' && reply_[d.span_begin] != '[')
      problem("directive span begins at " + c_literal(reply_.substr(d.span_begin, 12)) + ", not at markup");
    // 11.5: clean bytes committed when its first byte arrived; the sink has seen them all but at most an
    // incomplete UTF-8 sequence.
    if (d.clean_offset > log_.visible.size() + 3)
      problem("clean_offset " + std::to_string(d.clean_offset) + " beyond the " +
              std::to_string(log_.visible.size()) + " visible bytes emitted so far");
  }
  void on_diagnostic(const parse::Diagnostic& g) override {
    SummarySink::on_diagnostic(g);
    check_open("diagnostic");
    boost::json::object o = parse::diagnostic_json(g);
    o["event"] = "diagnostic";
    log_.events.push_back(boost::json::serialize(o));
    log_.diagnostics.push_back(g);
    if (g.offset > reply_.size()) problem("diagnostic " + g.code + " offset beyond the reply");
    if (g.code.empty()) problem("a diagnostic without a code");
  }
  void on_silence(std::uint64_t offset) override {
    SummarySink::on_silence(offset);
    check_open("silence");
    log_.events.push_back("{\"event\":\"silence\",\"offset\":" + std::to_string(offset) + "}");
    if (++silences_ > 1) problem("on_silence twice");
  }
  void on_fallback() override {
    SummarySink::on_fallback();
    check_open("fallback");
    log_.events.push_back("{\"event\":\"fallback\"}");
  }
  void on_end(bool silent) override {
    check_open("end");
    SummarySink::on_end(silent);
    log_.events.push_back(std::string("{\"event\":\"end\",\"silent\":") + (silent ? "true" : "false") + "}");
  }

 private:
  void check_open(const char* what) {
    if (ended()) problem(std::string("a ") + what + " event after on_end");
  }
  void problem(std::string p) {
    if (log_.problems.size() < 20) log_.problems.push_back(std::move(p));
  }
  EventLog& log_;
  std::string_view reply_;
  int silences_ = 0;
};

}  // namespace

void CountingSink::on_text(std::string_view text, bool hidden) {
  (hidden ? hidden_bytes : visible_bytes) += text.size();
  std::uint64_t& h = hidden ? hidden_hash : visible_hash;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3u;
  ++text_events;
  if (!text::is_valid_utf8(text)) ++invalid_text_events;
}

void CountingSink::on_directive(const parse::DirectiveEvent& d) {
  ++directives;
  ++actions[d.action];
  if (d.valid)
    ++valid_directives;
  else
    ++errors[d.error];
}

EventLog run_events(std::string_view reply, const RunOptions& options,
                    const std::vector<std::size_t>& sizes) {
  EventLog log;
  LogSink sink(log, reply);
  parse::Parser parser(grammar_for(options.mcp_servers), sink, parser_options(options));
  if (sizes.empty()) {
    sink.fed = reply.size();
    parser.feed(reply);
  } else {
    std::size_t at = 0;
    for (std::size_t n : sizes) {
      const std::string_view chunk = reply.substr(std::min(at, reply.size()), n);
      sink.fed = at + chunk.size();
      parser.feed(chunk);
      at += n;
    }
    sink.fed = reply.size();
    if (at < reply.size()) parser.feed(reply.substr(at));
  }
  sink.fed = EventLog::kAtFinish;
  log.text_before_finish = log.visible.size() + log.hidden.size();
  parser.finish(options.cut_off ? parse::FinishReason::Length : parse::FinishReason::Stop);
  if (!sink.ended()) log.problems.push_back("finish() did not call on_end");
  log.summary = sink.summary();
  log.stats = parser.stats();
  return log;
}

// Silence offsets are compared too (the chunk-dependent offset reproduced by
// PropertyRegression.SilenceOffsetIsChunkIndependent was fixed: line-rule silence is reported at the end).
constexpr bool kCompareSentinelOffsets = true;

namespace {
std::string masked_event(const std::string& e) {
  if (kCompareSentinelOffsets) return e;
  if (e.rfind("{\"event\":\"silence\"", 0) == 0) return "{\"event\":\"silence\",\"offset\":\"?\"}";
  return e;
}
}  // namespace

std::string first_difference(const EventLog& a, const EventLog& b) {
  auto text_diff = [](const char* what, const std::string& x, const std::string& y) -> std::string {
    if (x == y) return {};
    std::size_t i = 0;
    while (i < x.size() && i < y.size() && x[i] == y[i]) ++i;
    const std::size_t from = i > 40 ? i - 40 : 0;
    return std::string(what) + " differs at byte " + std::to_string(i) + " (sizes " +
           std::to_string(x.size()) + " / " + std::to_string(y.size()) + ")\n    first:  …" +
           c_literal(std::string_view(x).substr(from, 120)) + "\n    second: …" +
           c_literal(std::string_view(y).substr(from, 120));
  };
  if (auto d = text_diff("visible text", a.visible, b.visible); !d.empty()) return d;
  if (auto d = text_diff("hidden text", a.hidden, b.hidden); !d.empty()) return d;
  for (std::size_t i = 0; i < std::max(a.events.size(), b.events.size()); ++i) {
    const std::string x = i < a.events.size() ? masked_event(a.events[i]) : "(none)";
    const std::string y = i < b.events.size() ? masked_event(b.events[i]) : "(none)";
    if (x != y) return "event " + std::to_string(i) + " differs\n    first:  " + x + "\n    second: " + y;
  }
  const std::string sa = boost::json::serialize(a.summary), sb = boost::json::serialize(b.summary);
  if (auto d = text_diff("summary", sa, sb); !d.empty()) return d;
  if (a.stats.text_bytes != b.stats.text_bytes) return "stats.text_bytes differ";
  if (a.stats.directives != b.stats.directives) return "stats.directives differ";
  if (a.stats.diagnostics != b.stats.diagnostics) return "stats.diagnostics differ";
  if (a.stats.bytes_in != b.stats.bytes_in) return "stats.bytes_in differ";
  return {};
}

}  // namespace sigil::testing::gen
