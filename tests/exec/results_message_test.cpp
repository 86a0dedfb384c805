// The results message for the model is bounded (docs/security.md, "Results to the model").
#include "sigil/exec/results_message.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sigil/text/utf8.h"
#include "store/sqlite/sqlite_store.h"
#include "support/run_turn.h"

namespace sigil::exec {
namespace {

std::size_t line_count(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

TEST(ResultsMessage, WhatFitsIsExactlyTheLines) {
  EXPECT_EQ(results_message({}, 1024), "");
  EXPECT_EQ(results_message({"[1] a: ok: x", "[2] b: error: y"}, 1024), "[1] a: ok: x\n[2] b: error: y\n");
  // Exactly at the bound: 299 + 1 bytes.
  const std::string full(299, 'a');
  EXPECT_EQ(results_message({full}, 300), full + "\n");
}

TEST(ResultsMessage, OverTheBoundKeepsWholeLinesThenCountsTheRest) {
  std::vector<std::string> lines;
  for (int i = 1; i <= 1000; ++i)
    lines.push_back("[" + std::to_string(i) + "] react: refused: over the per-reply limit");
  const std::string m = results_message(lines, 4096);
  EXPECT_LE(m.size(), 4096u);
  EXPECT_GT(m.size(), 4096u - 60) << "room left unused";
  EXPECT_EQ(m.back(), '\n');
  const std::size_t shown = line_count(m) - 1;
  for (std::size_t i = 0; i < shown; ++i)
    EXPECT_NE(m.find(lines[i] + "\n"), std::string::npos) << "line " << i + 1 << " missing or cut";
  EXPECT_NE(m.find("\n[" + std::to_string(1000 - shown) +
                   " more results left out: the results message is limited to 4096 bytes]\n"),
            std::string::npos)
      << m.substr(m.size() - 200);
}

TEST(ResultsMessage, OneLeftOutSaysResult) {
  const std::string m = results_message({std::string(150, 'a'), std::string(150, 'b')}, 256);
  EXPECT_EQ(
      m, std::string(150, 'a') + "\n[1 more result left out: the results message is limited to 256 bytes]\n");
}

TEST(ResultsMessage, AFirstLineTooLongIsCutAtACharacter) {
  std::string first;
  for (int i = 0; i < 10000; ++i) first += "é";  // two bytes each: a cut could split one
  const std::string m = results_message({first, "[2] b: ok: short"}, 1000);
  EXPECT_LE(m.size(), 1000u);
  EXPECT_TRUE(text::is_valid_utf8(m));
  const std::string shown = m.substr(0, m.find('\n'));
  EXPECT_GT(shown.size(), 800u);
  EXPECT_EQ(shown.substr(shown.size() - 3), "…");
  EXPECT_NE(m.find("\n[1 more result left out"), std::string::npos) << m.substr(m.size() - 100);
}

TEST(ResultsMessage, TheBoundHasAFloor) {
  std::vector<std::string> lines(50, std::string(40, 'x'));
  const std::string m = results_message(lines, 10);
  EXPECT_LE(m.size(), kMinResultsBytes);
  EXPECT_NE(m.find("limited to 256 bytes"), std::string::npos) << m;
}

// Through the real parser and executor: 20,000 directives (32 meet no handler, the rest are refused over
// the per-reply limit) make a message of at most 16 KiB, not ~1 MB.
TEST(ResultsMessage, ExecutorModelMessageIsBoundedForAFloodOfRefusals) {
  auto opened = store::sqlite::SqliteStore::open(":memory:");
  ASSERT_TRUE(opened.ok());
  std::string reply;
  for (int i = 0; i < 20000; ++i) reply += "[SEARCH_EPISODIC:x]";
  const test::TurnRun run = test::run_turn(reply, HandlerTable{}, **opened);
  ASSERT_EQ(run.report.results.size(), 20000u);
  EXPECT_EQ(run.report.results.back().status, ResultStatus::Refused);
  const std::string& m = run.model_message;
  EXPECT_LE(m.size(), kDefaultResultsBytes);
  EXPECT_EQ(m.rfind("[1] searchArchive: error: no handler for searchArchive\n", 0), 0u) << m.substr(0, 100);
  EXPECT_NE(m.find("[33] searchArchive: refused: over the per-reply limit\n"), std::string::npos);
  const std::size_t shown = line_count(m) - 1;
  EXPECT_NE(m.find("\n[" + std::to_string(20000 - shown) +
                   " more results left out: the results message is limited to 16384 bytes]\n"),
            std::string::npos)
      << m.substr(m.size() - 200);

  ExecOptions small;
  small.max_results_bytes = 2048;
  const test::TurnRun bounded =
      test::run_turn(reply, HandlerTable{}, **opened, {"alice", "conv-1", "turn-2"}, small);
  EXPECT_LE(bounded.model_message.size(), 2048u);
  EXPECT_NE(bounded.model_message.find("limited to 2048 bytes]"), std::string::npos);
}

}  // namespace
}  // namespace sigil::exec
