// Spec 11.1, never leak: no byte of a directive, sentinel, hidden region or removable markup is emitted as
// text. The replies here are built so that which bytes are markup is known: prose without `<`, `>`, `[`,
// `]`, backticks, `~`, `&` or sentinel words, with well-formed directives, wrappers, comments, orphan close
// tags, sentinels and hidden regions inserted, each carrying a unique marker ("XQZ…"). No text event (and no
// concatenation of them) may hold a marker or any of those characters, for any chunking; and, the other way
// round, all the prose must arrive (nothing but markup removed: compared ignoring whitespace and emphasis).
// Also: every text event is valid UTF-8, even when the reply is not (10.4).
#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <iostream>

#include "grammar_gen.h"
#include "sigil/text/utf8.h"

namespace {

using namespace sigil::testing;
using namespace sigil::testing::gen;

// Whitespace, CR and emphasis characters dropped: what tidying may change.
std::string essence(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '*' && c != '_' && c != '~') out += c;
  return out;
}

// The first leak in one piece of text, or "".
std::string leak_in(std::string_view text) {
  static const std::vector<std::string_view> forbidden = {"XQZ",      "<",        ">",        "[", "]",
                                                          "NO_REPLY", "no-reply", "NO-REPLY", "`"};
  for (std::string_view f : forbidden) {
    const std::size_t at = text.find(f);
    if (at != std::string_view::npos) {
      const std::size_t from = at > 30 ? at - 30 : 0;
      return "holds " + c_literal(f) + " at byte " + std::to_string(at) + ": …" +
             c_literal(text.substr(from, 90));
    }
  }
  return {};
}

// Spans (11.5): a directive whose arguments hold a marker spans markup that holds it. Byte by byte, a
// directive arrives the moment it is final: with the last byte of its closing markup, or (brackets, 3.4)
// one byte later; never before its span ends.
std::string check_directives(const EventLog& log, const MarkedReply& m, bool byte_by_byte) {
  for (std::size_t i = 0; i < log.directives.size(); ++i) {
    const auto& d = log.directives[i];
    const std::string args = boost::json::serialize(d.args());
    const std::string_view span = std::string_view(m.reply).substr(d.span_begin, d.span_end - d.span_begin);
    for (std::size_t at = args.find("XQZ"); at != std::string::npos; at = args.find("XQZ", at + 3)) {
      std::size_t end = at + 3;
      while (end < args.size() && std::isalnum(static_cast<unsigned char>(args[end]))) ++end;
      const std::string marker = args.substr(at, end - at);
      if (span.find(marker) == std::string_view::npos)
        return "directive " + std::to_string(i) + " (" + d.action + ") holds " + marker + " but its span [" +
               std::to_string(d.span_begin) + ", " + std::to_string(d.span_end) + ") is " +
               c_literal(span, 200);
    }
    const std::uint64_t fed = log.directive_fed[i];
    // Tags are final at the last byte of their closing markup; brackets one byte later (3.4, 11.5), also
    // when that byte starts a multi-byte character (PropertyRegression.BracketIsFinalOneByteAfterItsClose).
    // A say block that an interrupting bracket ended ends where that bracket ends, and is final with it.
    const auto ends_with_bracket = [&](std::size_t j) {
      return j < log.directives.size() && m.reply[log.directives[j].span_begin] == '[' &&
             log.directives[j].span_end == d.span_end;
    };
    const bool bracket =
        m.reply[d.span_begin] == '[' || (d.action == "say" && i > 0 && ends_with_bracket(i - 1));
    const std::uint64_t latest = bracket ? d.span_end + 1 : d.span_end;
    if (byte_by_byte && fed != EventLog::kAtFinish && (fed < d.span_end || fed > latest))
      return "directive " + std::to_string(i) + " (" + d.action + ", span [" + std::to_string(d.span_begin) +
             ", " + std::to_string(d.span_end) + ")) arrived after " + std::to_string(fed) + " bytes: " +
             c_literal(
                 std::string_view(m.reply).substr(d.span_begin, fed > d.span_begin ? fed - d.span_begin : 0),
                 200);
  }
  return {};
}

// Everything 11.1 and 10.4 promise about one run, plus "only markup was removed"; "" when all holds.
std::string check_log(const EventLog& log, const MarkedReply& m) {
  if (!log.problems.empty()) return log.problems.front();
  for (std::size_t i = 0; i < log.text_events.size(); ++i)
    if (std::string l = leak_in(log.text_events[i]); !l.empty())
      return "text event " + std::to_string(i) + (log.text_hidden[i] ? " (hidden) " : " ") + l;
  if (std::string l = leak_in(log.visible); !l.empty()) return "the visible text " + l;
  if (std::string l = leak_in(log.hidden); !l.empty()) return "the hidden text " + l;
  if (!sigil::text::is_valid_utf8(log.visible) || !sigil::text::is_valid_utf8(log.hidden))
    return "the text is not valid UTF-8";
  struct Stream {
    const char* name;
    const std::string& expected;
    const std::string& got;
  };
  for (const Stream& s :
       {Stream{"visible", m.visible_prose, log.visible}, Stream{"hidden", m.hidden_prose, log.hidden}}) {
    const std::string want = essence(s.expected), got = essence(s.got);
    const bool ok = m.complete ? got == want : want.compare(0, got.size(), got) == 0;
    if (!ok) {
      std::size_t i = 0;
      while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
      const std::size_t from = i > 30 ? i - 30 : 0;
      return std::string(s.name) + " prose lost or changed (ignoring whitespace and emphasis" +
             (m.complete ? "" : "; expected a prefix") + ") at byte " + std::to_string(i) +
             "\n    expected: …" + c_literal(std::string_view(want).substr(from, 100)) + "\n    got:      …" +
             c_literal(std::string_view(got).substr(from, 100));
    }
  }
  return {};
}

struct Counts {
  int cases = 0, runs = 0, failures = 0, directives = 0;
  std::uint64_t bytes = 0;
};

void run_marked(const MarkedReply& m, const RunOptions& o, std::uint64_t seed, std::mt19937_64& rng,
                Counts& c) {
  ++c.cases;
  c.bytes += m.reply.size();
  const std::vector<std::vector<std::size_t>> chunkings = {{},
                                                           fixed_chunking(m.reply.size(), 1),
                                                           random_chunking(rng, m.reply.size(), 64),
                                                           random_chunking(rng, m.reply.size(), 5)};
  for (const auto& sizes : chunkings) {
    const EventLog log = run_events(m.reply, o, sizes);
    ++c.runs;
    if (sizes.empty()) c.directives += static_cast<int>(log.directives.size());
    std::string why = check_log(log, m);
    if (why.empty()) why = check_directives(log, m, sizes.size() == m.reply.size() && !sizes.empty());
    // 11.3: once the whole reply is in, only a short tail may still wait for the end (trailing blanks, a
    // sentinel candidate line, a partial opener); these replies hold no long whitespace run.
    const std::uint64_t tail = log.visible.size() + log.hidden.size() - log.text_before_finish;
    if (why.empty() && !o.cut_off && tail > 512)
      why = std::to_string(tail) + " bytes of text were held until finish()";
    if (!why.empty()) {
      ++c.failures;
      ADD_FAILURE() << "seed " << seed << " (say=" << o.say << " think_open=" << o.think_open
                    << " cut_off=" << o.cut_off << " deny=" << o.deny.size() << "), chunking "
                    << describe_chunks(sizes) << ":\n  " << why << "\n  reply: " << c_literal(m.reply)
                    << "\n  reproduce: SIGIL_PROPERTY_SEED=" << seed << " SIGIL_PROPERTY_CASES=1";
      return;
    }
  }
}

TEST(PropertyNeverLeak, MarkedReplies) {
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t base = property_seed(0x1EA4000);
  const int cases = std::max(1, property_cases(3000) * 2 / 3);
  Counts c;
  for (int i = 0; i < cases && c.failures < 10; ++i) {
    const std::uint64_t seed = base + static_cast<std::uint64_t>(i);
    ReplyGenerator g(seed);
    RunOptions o;
    o.say = i % 3 == 2;
    MarkedReply m = marked_reply(g, o.say);
    if (g.chance(0.08)) {  // the reply starts inside reasoning (8.3)
      o.think_open = true;
      std::string junk = g.reply(5);
      for (std::size_t at = junk.find("</"); at != std::string::npos; at = junk.find("</", at + 3))
        junk.insert(at + 1, " ");
      m.markers.push_back("XQZthink");
      m.reply = "XQZthink " + junk + "\n</think>\n" + m.reply;
    }
    if (g.chance(0.1)) {  // forbidden directives are still recognised and removed (12.6)
      static const std::vector<std::vector<std::string>> denials = {{"voice", "react"}, {"mcp"}, {"search"}};
      o.deny = g.pick(denials);
    }
    if (g.chance(0.2)) {
      // Cut off by a token limit anywhere, inside markup too: with finish `length` an unfinished opener, open
      // tag or close tag is removed, and a body or bracket with a complete opening is invalid, not shown
      // (11.6).
      o.cut_off = true;
      std::size_t cut = sigil::text::safe_cut(m.reply, g.below(m.reply.size() + 1));
      while (cut > 0 && (m.reply[cut - 1] == '<' || m.reply[cut - 1] == '[')) --cut;  // a lone `<` is text
      m.reply.resize(cut);
      m.complete = false;  // the prose arrives up to the cut: a prefix
    }
    run_marked(m, o, seed, g.rng(), c);
  }
  const double secs = seconds_since(start);
  std::cout << "[ property ] never leak: " << c.cases << " replies (" << c.bytes << " bytes, " << c.directives
            << " directives listed), " << c.runs << " parser runs, " << secs << " s\n";
}

// Hidden regions hold anything at all (the whole grammar, sentinels, invalid UTF-8): none of it shows,
// whether the region closes, never closes, or the reply starts inside one.
TEST(PropertyNeverLeak, HiddenRegionContentNeverShows) {
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t base = property_seed(0x41DDE4);
  const int cases = std::max(1, property_cases(3000) / 6);
  Counts c;
  static const std::vector<std::string> names = {"think", "thinking", "reasoning", "thought", "THINK"};
  for (int i = 0; i < cases && c.failures < 10; ++i) {
    const std::uint64_t seed = base + static_cast<std::uint64_t>(i);
    ReplyGenerator g(seed);
    RunOptions o;
    o.say = g.chance(0.2);
    MarkedReply m;
    auto junk = [&] {
      std::string j = g.reply(12);
      for (std::size_t at = j.find("</"); at != std::string::npos; at = j.find("</", at + 3))
        j.insert(at + 1, " ");
      const std::string mark = "XQZh" + std::to_string(m.markers.size());
      m.markers.push_back(mark);
      return mark + j + mark;
    };
    const std::string prose = "Hello there, friend.";
    const int shape = static_cast<int>(g.below(5));
    const std::string name = g.pick(names);
    switch (shape) {
      case 0:  // at the start
        m.reply = "<" + name + ">" + junk() + "</" + g.pick(names) + ">\n" + prose;
        break;
      case 1:  // at a line start, followed by a line break
        m.reply = prose + "\n  <" + name + ">  \r\n" + junk() + "</" + g.pick(names) + ">\n" + prose;
        break;
      case 2:  // never closed
        m.reply = prose + "\n<" + name + ">\n" + junk();
        break;
      case 3:  // --think-open
        o.think_open = true;
        m.reply = junk() + "</" + name + ">" + prose;
        break;
      default:  // after removed markup only
        m.reply =
            "<react emoji=\"XQZr\"/> <!-- XQZc -->\n<" + name + ">" + junk() + "</" + name + "> " + prose;
        m.markers.push_back("XQZr");
        break;
    }
    // In say mode there is no say block: the prose arrives hidden (the fallback, 6.5).
    (o.say ? m.hidden_prose : m.visible_prose) = shape == 1 ? prose + prose : prose;
    run_marked(m, o, seed, g.rng(), c);
  }
  const double secs = seconds_since(start);
  std::cout << "[ property ] hidden regions: " << c.cases << " replies, " << c.runs << " parser runs, "
            << secs << " s\n";
}

// 10.4: whatever the bytes, every text event is valid UTF-8 and never ends inside a sequence.
TEST(PropertyNeverLeak, TextIsAlwaysValidUtf8) {
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t base = property_seed(0x07F8000);
  const int cases = std::max(1, property_cases(3000) / 3);
  int failures = 0, runs = 0;
  for (int i = 0; i < cases && failures < 10; ++i) {
    const std::uint64_t seed = base + static_cast<std::uint64_t>(i);
    ReplyGenerator g(seed);
    std::string reply = g.reply(16);
    if (i % 4 == 0) {  // pure random bytes, biased to UTF-8 lead and continuation bytes
      reply.clear();
      for (std::size_t k = 0, n = 1 + g.below(300); k < n; ++k) {
        const std::size_t r = g.below(10);
        reply += static_cast<char>(r < 3 ? 0x80 + g.below(64) : r < 6 ? 0xC0 + g.below(64) : g.below(256));
      }
    } else {
      for (std::size_t k = 0, n = 1 + g.below(8); k < n; ++k) {  // invalid bytes sprinkled in
        static const std::vector<std::string> bad = {
            "\xff",     "\xc3",     "\xe2\x82",         "\xf0\x9f\x91",      "\xed\xa0\x80",
            "\xc0\xaf", "\x80\x80", "\xf4\x90\x80\x80", std::string(1, '\0')};
        reply.insert(g.below(reply.size() + 1), g.pick(bad));
      }
    }
    RunOptions o;
    o.say = g.chance(0.3);
    o.cut_off = g.chance(0.3);
    for (const auto& sizes : {std::vector<std::size_t>{}, fixed_chunking(reply.size(), 1),
                              random_chunking(g.rng(), reply.size(), 7)}) {
      const EventLog log = run_events(reply, o, sizes);
      ++runs;
      std::string why;
      if (!log.problems.empty())
        why = log.problems.front();
      else if (!sigil::text::is_valid_utf8(log.visible))
        why = "the visible text is not valid UTF-8";
      else if (!sigil::text::is_valid_utf8(log.hidden))
        why = "the hidden text is not valid UTF-8";
      else if (!sigil::text::is_valid_utf8(std::string(log.summary.at("text").as_string())))
        why = "the summary text is not valid UTF-8";
      if (!why.empty()) {
        ++failures;
        ADD_FAILURE() << "seed " << seed << ", chunking " << describe_chunks(sizes) << ": " << why
                      << "\n  reply: " << c_literal(reply);
        break;
      }
    }
  }
  const double secs = seconds_since(start);
  std::cout << "[ property ] UTF-8 validity: " << cases << " replies, " << runs << " parser runs, " << secs
            << " s\n";
}

// The checks can fail: markup that is (rightly) shown as text is reported as a leak, and lost prose is
// reported as a loss.
TEST(PropertyNeverLeak, ChecksCanFail) {
  RunOptions o;
  MarkedReply m;
  m.reply = "Look <b>XQZ1</b> here";  // an unregistered tag is text (1.3)
  m.visible_prose = "Look here";
  m.markers = {"XQZ1"};
  EXPECT_NE(check_log(run_events(m.reply, o, {}), m), "");
  m.reply = "Look here <react emoji=\"XQZ2\"/>";
  EXPECT_EQ(check_log(run_events(m.reply, o, {}), m), "");
  m.visible_prose = "Look here and more";
  EXPECT_NE(check_log(run_events(m.reply, o, {}), m), "");
}

}  // namespace

// ------------------------------------------------------------------------------------------------ known bugs
namespace {

// BUG (11.5, minor): a bracket directive is final one byte after its `]` (3.4: unless that byte is `(`), but
// when that byte starts a multi-byte UTF-8 character the parser only sees it once the whole character has
// arrived (the UTF-8 sanitizer holds the incomplete sequence), so byte by byte the directive is emitted up
// to 3 bytes late. The lead byte alone already rules out `(`.
TEST(PropertyRegression, BracketIsFinalOneByteAfterItsClose) {
  const std::string reply = "[REMEMBER:tea]\xe2\x80\x9cquoted\xe2\x80\x9d";  // `]` then U+201C
  const EventLog log = run_events(reply, {}, fixed_chunking(reply.size(), 1));
  ASSERT_EQ(log.directives.size(), 1u);
  EXPECT_EQ(log.directives[0].span_end, 14u);
  EXPECT_EQ(log.directive_fed[0], 15u);  // emitted after 17 bytes
}

}  // namespace
