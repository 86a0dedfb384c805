// The marked replies of grammar_gen.h (MarkedReply): replies whose clean text and directives are known.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>

#include "grammar_gen.h"
#include "grammar_words.h"
#include "sigil/parse/summary.h"
#include "sigil/text/utf8.h"

namespace sigil::testing::gen {

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
        const std::string_view gap = g_.weighted({{75, " "}, {7, "  "}, {6, "\n"}, {5, "\r\n"}, {7, "\n\n"}});
        out += one_line ? " " : gap;
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

}  // namespace sigil::testing::gen
