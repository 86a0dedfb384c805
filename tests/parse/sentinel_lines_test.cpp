// SentinelLines (spec 7.2, 7.3, 11.2, 11.3): the sentinel vectors as the clean text they reach this stage
// with, under many chunkings; holding and passing on; the Tidier -> SentinelLines pipeline.
#include "sigil/parse/sentinel_lines.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/parse/tidier.h"
#include "sigil/text/code_tracker.h"
#include "sigil/text/stage1.h"
#include "sigil/text/unicode.h"
#include "support/shadow_runs.h"
#include "support/text_recorder.h"

namespace sigil::parse {
namespace {

using Recorder = test::TextRecorder;

struct Result {
  std::string text;
  bool silent = false;
  bool late = false;
  std::vector<std::pair<std::size_t, std::uint64_t>> emitted_at;  // (input offset, emitted()) per call
  std::size_t max_held = 0;
};

// k = piece size; 0 = random sizes 1..16.
Result run(std::string_view input, std::size_t k, std::uint32_t seed = 1, SentinelWords words = {}) {
  Recorder sink;
  SentinelLines s(sink, std::move(words));
  Result r;
  std::mt19937 rng(seed);
  for (std::size_t i = 0; i < input.size();) {
    std::size_t n = k != 0 ? k : 1 + rng() % 16;
    n = std::min(n, input.size() - i);
    s.clean_text(input.substr(i, n));
    i += n;
    EXPECT_EQ(s.emitted(), sink.text.size());
    r.emitted_at.emplace_back(i, s.emitted());
    r.max_held = std::max(r.max_held, s.held_bytes());
  }
  s.finish();
  EXPECT_EQ(s.emitted(), sink.text.size());
  r.text = sink.text;
  r.silent = s.silent();
  r.late = s.decided_late();
  return r;
}

// Same verdict, text and emitted() after every prefix, whatever the chunking (1, 2, 3, 7, random, whole).
Result expect_judged(std::string_view input, bool silent) {
  const Result bytewise = run(input, 1);
  EXPECT_EQ(bytewise.silent, silent);
  if (silent) {
    EXPECT_EQ(bytewise.text, input.substr(0, bytewise.text.size()));  // what was shown came first
    EXPECT_EQ(bytewise.late, !bytewise.text.empty());
  } else {
    EXPECT_EQ(bytewise.text, input);
    EXPECT_FALSE(bytewise.late);
  }
  std::vector<std::uint64_t> at(input.size() + 1, 0);
  for (auto [offset, emitted] : bytewise.emitted_at) at[offset] = emitted;
  auto check = [&](const Result& r, const std::string& how) {
    EXPECT_EQ(r.text, bytewise.text) << how;
    EXPECT_EQ(r.silent, bytewise.silent) << how;
    EXPECT_EQ(r.late, bytewise.late) << how;
    for (auto [offset, emitted] : r.emitted_at) EXPECT_EQ(emitted, at[offset]) << how << " at " << offset;
    EXPECT_LE(r.max_held, SentinelLines::kMaxHeldBlank + 512) << how;
  };
  for (std::size_t k : {2, 3, 7, 100000}) check(run(input, k), "chunk " + std::to_string(k));
  for (std::uint32_t seed = 1; seed <= 6; ++seed) check(run(input, 0, seed), "seed " + std::to_string(seed));
  return bytewise;
}

// An independent whole-text reading of 7.2 and 7.3 for the default words, to check the streaming one.
bool ref_is_space(char32_t c) { return c == ' ' || c == '\t' || c == '\r'; }
bool ref_is_deco(char32_t c) {
  return c == '`' || c == '~' || c == '*' || c == '_' || text::is_punctuation(c);
}

// Ends (byte offsets) of the forms that match line at byte i.
std::vector<std::size_t> ref_forms_at(std::string_view line, std::size_t i) {
  std::vector<std::size_t> ends;
  for (std::string_view w : {"NO_REPLY", "NO_MESSAGE"})
    if (line.substr(i, w.size()) == w) ends.push_back(i + w.size());
  for (std::string_view n : {"no-reply", "no_reply"}) {
    const std::string name(n);
    for (const std::string& f :
         {"<" + name + "/>", "<" + name + " />", "<" + name + ">", "<" + name + "></" + name + ">"}) {
      std::string got(line.substr(i, f.size()));
      for (char& c : got) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (got == f) ends.push_back(i + f.size());
    }
  }
  return ends;
}

// [from, to) is decoration and spaces within the limits of one side.
bool ref_side_ok(std::string_view line, std::size_t from, std::size_t to) {
  std::size_t deco = 0, spaces = 0;
  for (std::size_t i = from; i < to;) {
    std::size_t len = 0;
    const char32_t c = text::decode_at(line, i, &len);
    if (ref_is_space(c))
      ++spaces;
    else if (ref_is_deco(c))
      ++deco;
    else
      return false;
    i += len;
  }
  return deco <= 3 && spaces <= 64;
}

// Where the left side ends: the first code point that is neither a space nor decoration.
std::size_t ref_left_end(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size()) {
    std::size_t len = 0;
    const char32_t c = text::decode_at(line, i, &len);
    if (!ref_is_space(c) && !ref_is_deco(c)) break;
    i += len;
  }
  return i;
}

bool ref_exact(std::string_view line) {
  const std::size_t i = ref_left_end(line);
  if (!ref_side_ok(line, 0, i)) return false;
  for (std::size_t j : ref_forms_at(line, i))
    if (ref_side_ok(line, j, line.size())) return true;
  return false;
}

bool ref_begins(std::string_view line) {
  const std::size_t i = ref_left_end(line);
  if (!ref_side_ok(line, 0, i)) return false;
  for (std::size_t j : ref_forms_at(line, i)) {
    std::size_t spaces = 0;
    while (j < line.size() && (line[j] == ' ' || line[j] == '\t' || line[j] == '\r')) ++j, ++spaces;
    if (spaces > 64 || j == line.size()) return true;
    std::size_t len = 0;
    const char32_t c = text::decode_at(line, j, &len);
    if (!text::is_lowercase_letter(c) && !text::is_decimal_digit(c)) return true;
  }
  return false;
}

bool ref_silent(std::string_view all) {
  std::vector<std::string_view> lines;
  for (std::size_t b = 0;;) {
    const std::size_t e = all.find('\n', b);
    lines.push_back(all.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
    if (e == std::string_view::npos) break;
    b = e + 1;
  }
  text::CodeTracker code;
  std::vector<bool> is_code;
  for (std::string_view line : lines) {
    bool c = code.in_fence();
    for (char ch : line) {
      code.step(static_cast<unsigned char>(ch));
      c = c || code.in_fence();
    }
    code.step('\n');
    is_code.push_back(c);
  }
  std::vector<std::size_t> nonempty;
  for (std::size_t k = 0; k < lines.size(); ++k)
    if (lines[k].find_first_not_of(" \t\r") != std::string_view::npos) nonempty.push_back(k);
  if (nonempty.empty()) return false;
  const std::size_t first = nonempty.front(), last = nonempty.back();
  return (!is_code[first] && ref_begins(lines[first])) || (!is_code[last] && ref_exact(lines[last]));
}

struct Vector {
  const char* id;
  std::string clean;  // the tidied clean text the line rules read
  bool silent;
};

// sentinels.jsonl, each as the clean text that reaches the line rules (after removals, tidied; a say
// block's text in say mode; the text before an interrupting directive). Vectors silenced only by a tag
// sentinel in ordinary text are the recognizer's (suppress()); they are listed with the clean text they
// leave, which the line rules do not find silent.
std::vector<Vector> sentinel_vectors() {
  return {
      {"sentinels-001 (tag: suppress)", "", false},
      {"sentinels-002 (tag: suppress)", "", false},
      {"sentinels-003 (tag: suppress)", "", false},
      {"sentinels-004 (tag: suppress)", "", false},
      {"sentinels-005 (tag: suppress)", "", false},
      {"sentinels-006", "NO_REPLY", true},
      {"sentinels-007", "NO_MESSAGE", true},
      {"sentinels-008", "NO_REPLY", true},
      {"sentinels-008 (untrimmed)", "\n  NO_REPLY  \n\n", true},
      {"sentinels-009", "**NO_REPLY**", true},
      {"sentinels-010", "`NO_MESSAGE`", true},
      {"sentinels-011", "\"NO_REPLY\"", true},
      {"sentinels-012", "'NO_MESSAGE'", true},
      {"sentinels-013", "NO_REPLY.", true},
      {"sentinels-014", "NO_REPLY", true},
      {"sentinels-015", "NO_MESSAGE", true},
      {"sentinels-016", "NO_REPLY", true},
      {"sentinels-017 (tag: suppress)", "", false},
      {"sentinels-018 (tag: suppress)", "", false},
      {"sentinels-019 (tag: suppress)", "", false},
      {"sentinels-020", "The magic word is NO_REPLY, but not today.", false},
      {"sentinels-021", "NO_REPLY\nActually, here is the answer.", true},
      {"sentinels-022", "NO_REPLYING", true},
      {"sentinels-023", "NO REPLY", false},
      {"sentinels-024", "<no-reply-now/>", false},
      {"sentinels-025", "Use `<no-reply/>` to stay silent.", false},
      {"sentinels-026", "Hello\nNO_REPLY", true},
      {"sentinels-027 (tag: suppress)", "Sure. More text here.", false},
      {"sentinels-028 (tag: suppress)", "Hi", false},
      {"sentinels-029", "no_reply", false},
      {"sentinels-030", "Thanks!\nNo_Message", false},
      {"sentinels-031", "*NO_REPLY*", true},
      {"sentinels-032", "_NO_MESSAGE_", true},
      {"sentinels-033", "**\"NO_REPLY\"**", true},
      {"sentinels-034", "(NO_REPLY)", true},
      {"sentinels-035", ".NO_REPLY", true},
      {"sentinels-036", "NO_REPLY!!", true},
      {"sentinels-037", "\xC2\xABNO_MESSAGE\xC2\xBB", true},
      {"sentinels-038", "NO_REPLY\xE2\x80\xA6", true},
      {"sentinels-039", "NO_REPLY \xF0\x9F\x99\x82", true},
      {"sentinels-040", "NO_REPLYThe answer is 4.", true},
      {"sentinels-041", "NO_REPLY", true},
      {"sentinels-042", "NO_REPLY", true},
      {"sentinels-043", "Here:\n```\nNO_REPLY", false},
      {"sentinels-044", "> NO_REPLY", false},
      {"sentinels-045", "Done for now.\n**NO_MESSAGE**", true},
      {"sentinels-046", "**NO_REPLY.**", true},
      {"sentinels-047", "\"NO_REPLY\".", true},
      {"sentinels-048", "(**NO_REPLY**)", true},
      {"sentinels-049", "Thanks for the update.\n_NO_MESSAGE!_", true},
      {"sentinels-050 (tag: suppress)", "", false},
      {"sentinels-051 (tag: suppress)", "Sure.", false},
      {"sentinels-052 (tag: suppress)", "", false},
      {"sentinels-053", "Done.\nNO_REPLY*", true},
      {"sentinels-054", "Done.\n'NO_MESSAGE", true},
      {"sentinels-055", "Done.\n_NO_REPLY", true},
      {"sentinels-056", "`<no-reply/>`", true},
      {"sentinels-057", "`<NO_REPLY />`", true},
      {"sentinels-058", "**`<no-reply/>`**", true},
      {"sentinels-059", "`<no-reply/>`\nThat tag keeps a reply silent.", true},
      {"sentinels-060", "```\n<no-reply/>\n```", false},
      {"sentinels-061", "NO_REPLYThe user is just saying thanks.", true},
      {"sentinels-062", "NO_MESSAGE\nThe user only said thanks; nothing to add.", true},
      {"sentinels-063", "NO_REPLY - they are talking to someone else.", true},
      {"sentinels-064", "NO_REPLY The user thanked me.", true},
      {"sentinels-065", "NO_REPLY\nThey were talking to Bob.", true},
      {"sentinels-066", "Well, NO_REPLY is what I would say.", false},
      {"sentinels-067", "No_Reply. They were talking to Bob.", false},
      {"sentinels-068", "**NO_REPLY**\nThe user is talking to Bob.", true},
      {"sentinels-069", "NO_REPLY: they are talking to Bob", true},
      {"sentinels-070", "NO_REPLYthe user said thanks", false},
      {"sentinels-071", "NO_MESSAGEThe user thanked me.", true},
      {"sentinels-072", "Use this:\n```\n<no-reply/>\n```\nto stay quiet.", false},
      {"sentinels-073", "Done.\n`NO_REPLY`", true},
      {"sentinels-074", "Done.\n`<no-reply/>`", true},
      {"sentinels-075", "A\n**NO_REPLY**\nB", false},
      {"sentinels-076", "**NO_REPLY** The user only said thanks.", true},
      {"sentinels-077", "(NO_REPLY) they were talking to Bob", true},
      {"sentinels-078", "***NO_REPLY***", true},
      {"sentinels-079", "****NO_REPLY****", false},
      {"sentinels-080", "~~NO_MESSAGE~~", true},
      {"sentinels-081", "[NO_REPLY]", true},
      {"sentinels-082", "\xC2\xA1NO_REPLY!", true},
      {"sentinels-083", "$NO_REPLY$", false},
      {"sentinels-084", "**NO_REPLY", true},
      {"sentinels-085 (tag: suppress)", "Sure", false},
      {"sentinels-086 (tag: suppress)", "Thanks for letting me know.", false},
      {"sentinels-087", "NO_MESSAGE \t\nLater lines here.", true},
      {"sentinels-087 (untrimmed)", "\t NO_MESSAGE \t\nLater lines here.", true},
      {"sentinels-088", "First.\nNO_REPLY\nLast.", false},
      {"sentinels-089 (say text)", "**NO_REPLY.**", true},
      {"sentinels-090 (say text)", "NO_REPLY is what I send when nothing is needed.", false},
      {"sentinels-091", "``NO_REPLY``", true},
      {"sentinels-092", "NO_REPLY is what I send when nothing is needed.", false},
      {"sentinels-093", "NO_REPLYing", false},
      {"sentinels-094", "NO_REPLY 2 people asked", false},
      {"sentinels-095", "NO_REPLY, The user is just saying thanks.", true},
      {"sentinels-096", "( NO_REPLY )", true},
      {"sentinels-097", "** NO_REPLY **", true},
      {"sentinels-098",
       "NO_REPLY \xC3\xA9"
       "clair",
       false},
      {"sentinels-099",
       "NO_REPLY \xC3\x89"
       "clair first",
       true},
      {"sentinels-100", "NO_REPLY \xD9\xA3 times", false},
      {"sentinels-101 (cut at the interrupt)", "Checking.", false},
      {"sentinels-102 (cut at the interrupt)", "Checking.", false},
      {"sentinels-103 (cut at the interrupt)", "NO_REPLY", true},
      {"sentinels-104", "Done.\n`NO_REPLY` is the word", false},
      // say.jsonl (say text, or the fallback text) and others about sentinel lines.
      {"say-035 (say text)", "On it", false},
      {"say-049 (say text)", "NO_REPLY", true},
      {"say-050 (say text, blocks joined by a blank line)", "Let me check.\n\nNO_MESSAGE", true},
      {"say-051 (say text)", "I will NO_REPLY later", false},
      {"say-068 (say text)", "Here you go.", false},
      {"say-071 (fallback)", "NO_MESSAGE", true},
      {"say-072 (fallback)", "Thanks, that is all.\nNO_REPLY", true},
      {"code-023", "```\nNO_REPLY\n```", false},
      {"code-040", "1) ```\n<no-reply/>\n```", false},
      {"eos-008", "Hello <no-reply", false},
      {"hidden-026", "Hi", false},
  };
}

TEST(SentinelLines, VectorsAnyChunking) {
  for (const Vector& v : sentinel_vectors()) {
    SCOPED_TRACE(v.id);
    expect_judged(v.clean, v.silent);
    EXPECT_EQ(ref_silent(v.clean), v.silent);
  }
}

// Late or not: the first line is held until rule (b) decides it, a candidate last line until the end.
TEST(SentinelLines, HoldsOnlyWhatCanDecide) {
  EXPECT_FALSE(expect_judged("NO_REPLY", true).late);
  EXPECT_FALSE(expect_judged("**NO_REPLY**\nThe user is talking to Bob.", true).late);
  EXPECT_FALSE(expect_judged("NO_REPLY The user is talking to Bob.", true).late);
  EXPECT_TRUE(expect_judged("Hello\nNO_REPLY", true).late);
  EXPECT_EQ(expect_judged("Hello\nNO_REPLY", true).text, "Hello\n");
  EXPECT_EQ(expect_judged("Done.\nok\n\n**NO_MESSAGE**\n\n", true).text, "Done.\nok\n\n");

  Recorder sink;
  SentinelLines s(sink);
  s.clean_text("Hel");
  EXPECT_EQ(sink.text, "Hel");  // cannot begin with a sentinel
  s.clean_text("lo\n");
  EXPECT_EQ(sink.text, "Hello\n");
  s.clean_text("  NO_RE");
  EXPECT_EQ(sink.text, "Hello\n");  // may become a sentinel line
  s.clean_text("PLY");
  EXPECT_EQ(sink.text, "Hello\n");
  s.clean_text(" is");
  EXPECT_EQ(sink.text, "Hello\n  NO_REPLY is");  // no longer
  s.clean_text(" it\nNO_MESSAGE.\n\n");
  EXPECT_EQ(sink.text, "Hello\n  NO_REPLY is it\n");  // held: it may be the last line
  s.clean_text("More");
  EXPECT_EQ(sink.text, "Hello\n  NO_REPLY is it\nNO_MESSAGE.\n\nMore");  // it was not
  s.finish();
  EXPECT_FALSE(s.silent());
}

TEST(SentinelLines, FirstLineLooksPastSpacesOnly) {
  expect_judged("NO_REPLY    they", false);
  expect_judged("NO_REPLY\tThey", true);
  expect_judged("NO_REPLY" + std::string(64, ' ') + "they", false);
  expect_judged("NO_REPLY" + std::string(65, ' ') + "they", true);  // past 64 spaces: not followed by Ll
  expect_judged("NO_REPLY.they", true);
  expect_judged("`<no-reply/>` keeps it quiet", true);
  expect_judged("<no-reply>they", false);
  expect_judged("<no-reply></no-reply> x", true);
  expect_judged("<No-Reply></NO-REPLY>", true);
  expect_judged("<no-reply></no_reply>", true);      // <no-reply> then `<`: not followed by Ll
  expect_judged("x\n<no-reply></no_reply>", false);  // not one form
  expect_judged("NO_MESSAGE_", true);
  expect_judged("NO_MESSAGES", true);
  expect_judged("NO_MESSAGEs", false);
}

TEST(SentinelLines, Decoration) {
  expect_judged("x\n***NO_REPLY***", true);
  expect_judged("x\n* * *NO_REPLY", true);
  expect_judged("x\n****NO_REPLY", false);
  expect_judged("x\nNO_REPLY****", false);
  expect_judged("x\n" + std::string(64, ' ') + "NO_REPLY" + std::string(64, '\t'), true);
  expect_judged("x\n" + std::string(65, ' ') + "NO_REPLY", false);
  expect_judged("x\nNO_REPLY" + std::string(65, ' ') + ".", false);
  expect_judged("x\n\xE3\x80\x8CNO_REPLY\xE3\x80\x8D", true);  // 「」
  expect_judged("x\n\xF0\x9F\x91\x8DNO_REPLY", false);         // emoji: no decoration
  expect_judged("x\nNO_REPLY NO_REPLY", false);
  expect_judged("x\nNO_REPLY\r\n", true);
  expect_judged("x\n- NO_REPLY", true);   // `-` is punctuation
  expect_judged("x\n+ NO_REPLY", false);  // `+` is a symbol
}

// After a dead line, a line that dies at its first byte past ASCII spaces and decoration is passed on without
// judging (FormSet::dies_early); one whose first such byte may begin a form is judged as before. Chunked
// bytewise the judge steps every line, so expect_judged compares the two.
TEST(SentinelLines, LinesThatDiePastTheirDecoration) {
  expect_judged("Plan:\n**Day 1** walk\n- item\n  - * (x) item\n**NO_REPLY**\n", true);
  expect_judged("Plan:\n- item\n- NO_REPLY\n- more\n", false);
  expect_judged("Plan:\n**Day 1**\n\n  -- NO_REPLY --  \n\n", true);
  expect_judged("Plan:\n---- NO_REPLY\n", false);   // four decoration characters
  expect_judged("Plan:\n- `<no-reply/>`\n", true);  // `<` may begin a tag form
  expect_judged("Plan:\n- x\n```\n- NO_REPLY\n```\n", false);
  expect_judged("Plan:\n- x\n```\n- y\n```\n- NO_REPLY", true);
  expect_judged("Plan:\n" + std::string(70, ' ') + "x\n" + std::string(70, ' ') + "NO_REPLY", false);
}

TEST(SentinelLines, Fences) {
  expect_judged("```NO_REPLY", false);  // an opening fence line
  expect_judged("x\n~~~NO_REPLY", false);
  expect_judged("x\n``NO_REPLY``", true);             // two backticks: no fence
  expect_judged("```\ncode\n```\nNO_REPLY", true);    // after the fence closed
  expect_judged("x\n```\nNO_REPLY\n```\n\n", false);  // the closing fence line is last
  expect_judged("x\n> ```\nNO_REPLY", false);
  expect_judged("x\n   ~~~~\n~~~\nNO_REPLY", false);  // a shorter run does not close
}

TEST(SentinelLines, BlankLinesAroundTheLastLine) {
  expect_judged("Hi\n\n\nNO_REPLY\n\n\n", true);
  expect_judged("Hi\nNO_REPLY\n\n\n.", false);
  expect_judged("Hi\nNO_REPLY\n  \n\t\n", true);
  // Many blank lines are passed on past the cap; the rule still holds, as a late sentinel.
  const std::string many = "Hi\nNO_REPLY" + std::string(SentinelLines::kMaxHeldBlank + 10, '\n');
  const Result r = expect_judged(many, true);
  EXPECT_TRUE(r.late);
  expect_judged(std::string(5000, '\n') + "NO_REPLY", true);
  expect_judged(std::string(5000, '\n') + "NO_REPLYing", false);
}

TEST(SentinelLines, SuppressAndSilenceStopOutput) {
  Recorder sink;
  SentinelLines s(sink);
  s.clean_text("Sure.");
  EXPECT_EQ(sink.text, "Sure.");
  s.clean_text(" More\nNO_");
  s.suppress();
  s.clean_text("REPLY\nmore");
  s.finish();
  EXPECT_EQ(sink.text, "Sure. More\n");
  EXPECT_FALSE(s.silent());

  Recorder sink2;
  SentinelLines t(sink2);
  t.clean_text("NO_REPLY: hi\nlater text");
  t.finish();
  EXPECT_TRUE(t.silent());
  EXPECT_FALSE(t.decided_late());
  EXPECT_EQ(sink2.text, "");
}

TEST(SentinelLines, ConfiguredWords) {
  SentinelWords words;
  words.bare = {"SILENCE", "", "*BAD"};
  words.tags = {"Quiet"};
  EXPECT_TRUE(run("SILENCE", 1, 1, words).silent);
  EXPECT_FALSE(run("NO_REPLY", 1, 1, words).silent);
  EXPECT_TRUE(run("x\n`<QUIET />`", 1, 1, words).silent);
  EXPECT_FALSE(run("x\n`<no-reply/>`", 1, 1, words).silent);
  EXPECT_FALSE(run("x\n*BAD", 1, 1, words).silent);
}

// Random texts: any chunking gives the same verdict, text and emitted() after every prefix.
TEST(SentinelLines, RandomInputsAnyChunking) {
  const std::vector<std::string> tokens = {
      "NO_REPLY",   "NO_MESSAGE",  "NO_",      "<no-reply/>",
      "<no_reply>", "</no-reply>", "`",        "```",
      "~~~",        "**",          "*",        "_",
      "(",          ")",           ".",        "\xE2\x80\xA6",
      "\xC2\xAB",   " ",           "  ",       "\t",
      "\n",         "\n",          "\n\n",     "\r\n",
      "a",          "The",         "\xC3\xA9", "2",
      "> ",         "- ",          "$",        "\xF0\x9F\x99\x82",
  };
  std::mt19937 rng(4242);
  for (int iter = 0; iter < 3000; ++iter) {
    std::string input;
    const int n = 1 + static_cast<int>(rng() % 14);
    for (int j = 0; j < n; ++j) input += tokens[rng() % tokens.size()];
    SCOPED_TRACE(testing::PrintToString(input));
    const Result whole = run(input, 100000);
    ASSERT_EQ(whole.silent, ref_silent(input));
    if (!whole.silent) {
      EXPECT_EQ(whole.text, input);
    }
    std::vector<std::uint64_t> at(input.size() + 1, 0);
    const Result bytewise = run(input, 1);
    for (auto [offset, emitted] : bytewise.emitted_at) at[offset] = emitted;
    for (std::size_t k : {2, 3, 7, 0}) {
      const Result r = run(input, k, iter);
      ASSERT_EQ(r.text, whole.text) << k;
      ASSERT_EQ(r.silent, whole.silent) << k;
      ASSERT_EQ(r.late, whole.late) << k;
      for (auto [offset, emitted] : r.emitted_at) ASSERT_EQ(emitted, at[offset]) << k << " at " << offset;
    }
    ASSERT_EQ(bytewise.text, whole.text);
    ASSERT_EQ(bytewise.silent, whole.silent);
  }
}

// The whole path of section 10 and 7.3 as the parser wires it: text and gaps -> Tidier -> SentinelLines.
// '\x01' = a removed directive, '\x02' = other removed markup.
struct PipelineResult {
  std::string text;
  bool silent;
};

PipelineResult pipeline(std::string_view input, std::size_t k) {
  Recorder sink;
  SentinelLines judge(sink);
  Tidier tidy(judge);
  std::string segment;
  auto feed = [&] {
    for (std::size_t i = 0; i < segment.size(); i += k) tidy.text(std::string_view(segment).substr(i, k));
    segment.clear();
  };
  for (char c : input) {
    if (c == '\x01' || c == '\x02') {
      feed();
      tidy.gap(c == '\x01' ? GapKind::Directive : GapKind::Other);
    } else {
      segment.push_back(c);
    }
  }
  feed();
  tidy.finish();
  judge.finish();
  return {judge.silent() ? "" : sink.text, judge.silent()};
}

TEST(SentinelLines, PipelineVectors) {
  struct Case {
    const char* id;
    std::string input;
    std::string text;
    bool silent;
  };
  const std::vector<Case> cases = {
      {"sentinels-008", "\n  NO_REPLY  \n\n", "", true},
      {"sentinels-014", "\x01\nNO_REPLY", "", true},
      {"sentinels-015", "\x01\n\nNO_MESSAGE\n", "", true},
      {"sentinels-016", "\x02\nNO_REPLY", "", true},
      {"sentinels-041", "\x01 NO_REPLY", "", true},
      {"sentinels-042", "\x02NO_REPLY", "", true},
      {"sentinels-064", "\x01NO_REPLY The user thanked me.", "", true},
      {"sentinels-065", "\x02NO_REPLY\nThey were talking to Bob.", "", true},
      {"sentinels-071", "\x01NO_MESSAGEThe user thanked me.", "", true},
      {"sentinels-087", "\t NO_MESSAGE \t\nLater lines here.", "", true},
      {"sentinels-043", "Here:\n```\nNO_REPLY", "Here:\n```\nNO_REPLY", false},
      {"sentinels-075", "A\n**NO_REPLY**\nB", "A\n**NO_REPLY**\nB", false},
      {"hidden-026", "\x02Hi", "Hi", false},
      {"emphasis then sentinel", "Done! **\x01**\nNO_REPLY", "", true},
      {"removed last line", "Hello\nNO_REPLY\n\x01", "", true},
      {"removal after the sentinel line", "Hello\nNO_REPLY \x01\n\n", "", true},
      {"text after", "Hello\nNO_REPLY\n\x01 ok", "Hello\nNO_REPLY\nok", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.id);
    for (std::size_t k : {1, 2, 3, 7, 100000}) {
      const PipelineResult r = pipeline(c.input, k);
      EXPECT_EQ(r.text, c.text) << k;
      EXPECT_EQ(r.silent, c.silent) << k;
    }
  }
}

// The recognizer's word (fence_free_run): a judge told that its pieces lie in runs its shadow tracker saw
// outside any fence steps only their first and last lines, and must judge exactly as one that steps every
// byte. The shadow here is what the recognizer's is: the same text, plus removed markup (`\x01` below) that
// the judge never sees, which can make a line start differently for the two (`\x01```` is a span to the
// shadow, a fence to the judge).
struct FenceFreeResult {
  std::string text;
  bool silent = false;
  bool late = false;
  std::uint64_t shared = 0;
  std::uint64_t told_dead = 0;
};

// `lines` adds the shadow tracker's word on which lines die at their first byte (its other_breaks()).
FenceFreeResult run_told(std::string_view input, std::size_t k, std::uint32_t seed, bool tell,
                         bool lines = false) {
  Recorder sink;
  SentinelLines judge(sink);
  text::CodeTracker shadow;
  shadow.plain_line_starts(judge.line_killers());
  std::mt19937 rng(seed);
  const auto size = [&] { return k != 0 ? k : 1 + rng() % 40; };
  test::shadow_runs(input, shadow, size,
                    [&](std::string_view piece, const text::stage1::MaskView& view, bool free) {
                      if (tell && free) judge.fence_free_run(piece, lines ? &shadow.other_breaks() : nullptr);
                      // As the tidier passes pieces on: some whole, some split, the tail of a few without
                      // masks.
                      const std::size_t cut = rng() % 3 == 0 ? rng() % (piece.size() + 1) : piece.size();
                      judge.clean_run(piece.substr(0, cut), view.sub(0, cut));
                      if (cut < piece.size()) judge.clean_text(piece.substr(cut));
                      judge.fence_free_run({});
                    });
  judge.finish();
  return {sink.text, judge.silent(), judge.decided_late(), judge.shared_code_bytes(),
          judge.told_dead_bytes()};
}

TEST(SentinelLines, FenceFreeRunsJudgeAsSteppingDoes) {
  const std::vector<std::string> lines = {"Plain words here.",
                                          "- item",
                                          "**Day 1** walk",
                                          "NO_REPLY",
                                          "  NO_REPLY  ",
                                          "```",
                                          "```js",
                                          "~~~",
                                          "  ~~~~",
                                          "`code` and `more`",
                                          "``x``",
                                          "> ```",
                                          "\x01```",
                                          "\x01~~~ x",
                                          "\x01NO_REPLY",
                                          "x\x01```",
                                          "\x01```js",
                                          "1. step",
                                          "",
                                          "",
                                          "**NO_REPLY**",
                                          "`<no-reply/>`",
                                          "a ``` b",
                                          "```\x01"};
  std::mt19937 rng(11);
  std::uint64_t shared = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string input = "Intro line.\n";
    const int count = 2 + static_cast<int>(rng() % 14);
    for (int l = 0; l < count; ++l) {
      input += lines[rng() % lines.size()];
      if (l + 1 < count || rng() % 2 == 0) input += '\n';
    }
    const std::size_t k = rng() % 4 == 0 ? 100000 : 0;
    const std::uint32_t seed = static_cast<std::uint32_t>(rng());
    const FenceFreeResult stepped = run_told(input, k, seed, false);
    const FenceFreeResult told = run_told(input, k, seed, true);
    ASSERT_EQ(told.text, stepped.text) << input;
    ASSERT_EQ(told.silent, stepped.silent) << input;
    ASSERT_EQ(told.late, stepped.late) << input;
    EXPECT_EQ(stepped.shared, 0u);
    EXPECT_EQ(told.told_dead, 0u);
    shared += told.shared;
  }
  EXPECT_GT(shared, 3000u);  // the shortcut was taken, not only the stepping
}

// "Intro line." and `count` lines drawn from `lines`, half of them from its first two (plain prose in the
// tests below), each ended by a line break but the last only sometimes.
std::string reply_of_lines(std::mt19937& rng, const std::vector<std::string>& lines, int count) {
  std::string input = "Intro line.\n";
  for (int l = 0; l < count; ++l) {
    input += lines[rng() % (rng() % 2 == 0 ? 2 : lines.size())];
    if (l + 1 < count || rng() % 2 == 0) input += '\n';
  }
  return input;
}

// The shadow tracker's word on which lines die at their first byte (its other_breaks(), listing the breaks
// after which a line began with a lead byte or a byte that does not kill a line): the judge passes on what it
// passes on when it looks for every break itself. Random replies of prose, lines that die past decoration,
// lines to judge (sentinels, the first letter of a form, CRs, non-ASCII first bytes), fences, spans and
// removed markup the judge never sees, in random pieces, some split without masks; lists that overflow.
TEST(SentinelLines, ToldDeadLinesJudgeAsLookingDoes) {
  const std::vector<std::string> lines = {"Plain words here.",
                                          "Other words.",
                                          "No reply.",
                                          "NO_REPLY",
                                          "  NO_REPLY  ",
                                          "**NO_REPLY**",
                                          "- item",
                                          "**Day 1** walk",
                                          "```",
                                          "~~~",
                                          "`code` and `more`",
                                          "\x01```js",
                                          "\x01NO_REPLY",
                                          "x\x01```",
                                          "\xC3\x9C"
                                          "ber",
                                          "\r",
                                          "Words\r",
                                          "  ",
                                          "",
                                          "",
                                          "1. step"};
  std::mt19937 rng(12);
  std::uint64_t told_dead = 0;
  for (int round = 0; round < 3000; ++round) {
    const int count = 2 + static_cast<int>(rng() % (rng() % 4 == 0 ? 60 : 14));
    const std::string input = reply_of_lines(rng, lines, count);
    const std::size_t k = rng() % 3 == 0 ? 100000 : 0;
    const std::uint32_t seed = static_cast<std::uint32_t>(rng());
    const FenceFreeResult stepped = run_told(input, k, seed, false);
    const FenceFreeResult told = run_told(input, k, seed, true, true);
    ASSERT_EQ(told.text, stepped.text) << testing::PrintToString(input);
    ASSERT_EQ(told.silent, stepped.silent) << testing::PrintToString(input);
    ASSERT_EQ(told.late, stepped.late) << testing::PrintToString(input);
    told_dead += told.told_dead;
  }
  EXPECT_GT(told_dead, 100000u);  // the word was taken, not only the looking
}

// A dead line's mid-line pieces with masks go on after one look at the masks (CodeTracker::feed_plain, for
// the judge's tracker and the line at once): the judge passes on the same text, as soon, and decides as a
// judge given the same pieces without masks (which looks at their bytes). Random replies of prose, spans,
// fences, sentinels and non-ASCII text in random pieces of 0-24 bytes; fails unless over 20,000 pieces went
// the plain way, and the judge without masks never takes it.
TEST(SentinelLines, PlainDeadPiecesJudgeAsWithoutMasks) {
  const std::vector<std::string> lines = {"Plain words here, and more of them to pass in pieces.",
                                          "Other words, a longer line that goes on and on for a while.",
                                          "NO_REPLY",
                                          "  NO_REPLY  ",
                                          "**NO_REPLY**",
                                          "NO_REPLY and then words",
                                          "- item with words after it",
                                          "```",
                                          "~~~",
                                          "words `code` and `more` words, ``two`` ticks",
                                          "a ``` b in the middle of a line of words",
                                          "\xC3\x9C"
                                          "ber words with \xE2\x80\x94 dashes",
                                          "Words\r",
                                          "",
                                          "1. step"};
  std::mt19937 rng(13);
  std::uint64_t plain = 0;
  std::vector<text::stage1::BlockMasks> masks;
  for (int round = 0; round < 3000; ++round) {
    const std::string input = reply_of_lines(rng, lines, 1 + static_cast<int>(rng() % 12));
    Recorder with_sink, without_sink;
    SentinelLines with(with_sink), without(without_sink);
    for (std::size_t i = 0; i < input.size();) {
      const std::string piece = input.substr(i, rng() % 25);  // its own memory, with its own masks
      masks.assign(text::stage1::blocks_for(piece.size()), {});
      text::stage1::scan(piece, masks.data());
      with.clean_run(piece, text::stage1::MaskView(masks.data(), 0, piece.size()));
      without.clean_text(piece);
      ASSERT_EQ(with.emitted(), without.emitted()) << testing::PrintToString(input) << " at " << i;
      ASSERT_EQ(with.held_bytes(), without.held_bytes()) << testing::PrintToString(input) << " at " << i;
      i += piece.size();
    }
    with.finish();
    without.finish();
    ASSERT_EQ(with_sink.text, without_sink.text) << testing::PrintToString(input);
    ASSERT_EQ(with.silent(), without.silent()) << testing::PrintToString(input);
    ASSERT_EQ(with.decided_late(), without.decided_late()) << testing::PrintToString(input);
    plain += with.plain_dead_pieces();
    ASSERT_EQ(without.plain_dead_pieces(), 0u);
  }
  EXPECT_GT(plain, 20000u);
}

// The case the first line is stepped for: removed markup made `` ```js `` a span to the shadow, which then
// opened no fence, but the judge sees it at a line start (a line that dies early: passed on unstepped) and
// is in a fence for the lines after it.
TEST(SentinelLines, FenceFreeRunStillStepsItsFirstLine) {
  for (std::size_t k : {std::size_t{0}, std::size_t{100000}}) {
    const FenceFreeResult told = run_told("Hello\n\x01```js\nfoo\nbar\nNO_REPLY\nbaz\nNO_REPLY", k, 3, true);
    EXPECT_FALSE(told.silent) << k;
    EXPECT_EQ(told.text, "Hello\n```js\nfoo\nbar\nNO_REPLY\nbaz\nNO_REPLY") << k;
  }
}

// A short piece without masks on a dead line that shows text goes on after one memchr (what the tidier
// gathers after a stepped byte): the same text as one whole piece gives, taken for every such piece, and not
// for a piece with a line break (which may start a line to judge) or a line still alive.
TEST(SentinelLines, ShortPiecesOfADeadLineGoOnWhole) {
  const std::string text = "Well, here it is: words and more words\nNO_REPLY";
  Recorder whole_sink;
  SentinelLines whole(whole_sink);
  whole.clean_text(text);
  whole.finish();
  Recorder sink;
  SentinelLines judge(sink);
  for (std::size_t i = 0; i < text.size(); i += 5) judge.clean_text(std::string_view(text).substr(i, 5));
  judge.finish();
  EXPECT_EQ(sink.text, whole_sink.text);
  EXPECT_EQ(judge.silent(), whole.silent());
  EXPECT_TRUE(judge.silent());
  // The first line dies at its `W` (no form starts so): the pieces after the first, up to the one holding
  // the line break, go on whole.
  const std::size_t nl_piece = text.find('\n') / 5;
  EXPECT_EQ(judge.short_dead_pieces(), nl_piece - 1);
}

// What a judge passes on for `input` fed in random pieces, each with stage 1's masks of its own memory when
// `masks` (the line starts of dead lines then come from the masks), else without (each break found and the
// breaks after it skipped, the path that reads bytes).
struct MaskedResult {
  std::string text;
  bool silent = false;
  bool late = false;
  std::uint64_t by_masks = 0;
};

MaskedResult run_pieces(std::string_view input, std::uint32_t seed, bool masks) {
  Recorder sink;
  SentinelLines judge(sink);
  std::vector<text::stage1::BlockMasks> blocks;
  std::mt19937 rng(seed);
  const std::size_t most = rng() % 3 == 0 ? 100000 : 1 + rng() % 300;
  for (std::size_t i = 0; i < input.size();) {
    const std::size_t n = std::min<std::size_t>(input.size() - i, 1 + rng() % most);
    const std::string piece(input.substr(i, n));
    if (masks) {
      blocks.assign(text::stage1::blocks_for(piece.size()), {});
      text::stage1::scan(piece, blocks.data());
      judge.clean_run(piece, text::stage1::MaskView(blocks.data(), 0, piece.size()));
    } else {
      judge.clean_run(piece, {});
    }
    i += n;
  }
  judge.finish();
  return {sink.text, judge.silent(), judge.decided_late(), judge.dead_lines_by_masks()};
}

// Prose with lines that die at once, lines to judge (sentinels, forms' first letters, decoration, spaces,
// CRs, non-ASCII first bytes), blank lines and fences, in random pieces: the line starts read from the masks
// pass on what finding each break does, and are taken.
TEST(SentinelLines, DeadLineStartsFromMasksJudgeAsFindingBreaksDoes) {
  const std::vector<std::string> lines = {
      "Plain words here, and more of them to make a longer line of prose.",
      "Short.",
      "No reply was needed.",
      "NO_REPLY",
      "  NO_REPLY  ",
      "**NO_REPLY**",
      "NO_MESSAGE.",
      "- item",
      "**Day 1** walk",
      "\xC3\x9C"
      "ber caf\xC3\xA9",
      "\xE2\x80\x94 a dash",
      "```",
      "~~~",
      "`<no-reply/>`",
      "x\r",
      "\r",
      "  ",
      "",
      "",
      "words\r"};
  std::mt19937 rng(311);
  std::uint64_t by_masks = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string input;
    const int count = 1 + static_cast<int>(rng() % 30);
    for (int l = 0; l < count; ++l) {
      input += lines[rng() % lines.size()];
      if (l + 1 < count || rng() % 2 == 0) input += rng() % 5 == 0 ? "\n\n" : "\n";
    }
    const std::uint32_t seed = static_cast<std::uint32_t>(rng());
    const MaskedResult found = run_pieces(input, seed, false);
    const MaskedResult masked = run_pieces(input, seed, true);
    ASSERT_EQ(masked.text, found.text) << testing::PrintToString(input);
    ASSERT_EQ(masked.silent, found.silent) << testing::PrintToString(input);
    ASSERT_EQ(masked.late, found.late) << testing::PrintToString(input);
    EXPECT_EQ(found.by_masks, 0u);
    by_masks += masked.by_masks;
  }
  EXPECT_GT(by_masks, 1000u);  // the masks' line starts were taken, not only the breaks found
}

// Markup-free prose fed whole with masks: the first paragraph is judged, the second found by its break, and
// every one after it is a line start taken from the masks (each dies at its first letter).
TEST(SentinelLines, ProseLinesDieByTheMasksLineStarts) {
  std::string prose;
  for (int p = 0; p < 50; ++p)
    prose += "Words of a paragraph, long enough to span a block or two of stage 1. Fin.\n\n";
  std::vector<text::stage1::BlockMasks> blocks(text::stage1::blocks_for(prose.size()));
  text::stage1::scan(prose, blocks.data());
  Recorder sink;
  SentinelLines judge(sink);
  judge.clean_run(prose, text::stage1::MaskView(blocks.data(), 0, prose.size()));
  judge.finish();
  EXPECT_EQ(sink.text, prose);
  EXPECT_EQ(judge.dead_lines_by_masks(), 48u);
}

}  // namespace
}  // namespace sigil::parse
