// The voice budget (docs/security.md, "Voice budget"): characters of voice notes per turn and per user per
// minute, checked before espeak-ng runs. The flood tests go through the real parser, executor and voice
// action, with a stand-in espeak-ng that counts its runs and answers with a short WAV.
#include "sigil/actions/voice_budget.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>

#include "sigil/actions/voice_action.h"
#include "store/sqlite/sqlite_store.h"
#include "support/run_turn.h"
#include "support/temp_dir.h"

namespace sigil::actions {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const store::TimePoint t0 = store::TimePoint{} + std::chrono::hours(24 * 365 * 50);

exec::TurnIds turn(std::string user, std::string id, std::string conversation = "c1") {
  return {std::move(user), std::move(conversation), std::move(id)};
}

TEST(VoiceBudget, PerTurnLimitRefusesWhatWouldPassItAndChargesNothingThen) {
  VoiceBudget budget({100, 0});
  EXPECT_EQ(budget.charge(turn("alice", "T"), 60, t0), std::nullopt);
  EXPECT_EQ(budget.charge(turn("alice", "T"), 41, t0),
            "voice budget: 41 more characters would pass the limit of 100 per turn (60 used in this turn)");
  EXPECT_EQ(budget.charge(turn("alice", "T"), 40, t0), std::nullopt) << "the refused note was charged";
  EXPECT_NE(budget.charge(turn("alice", "T"), 1, t0), std::nullopt);
  // Another turn, conversation or user has its own count.
  EXPECT_EQ(budget.charge(turn("alice", "U"), 100, t0), std::nullopt);
  EXPECT_EQ(budget.charge(turn("alice", "T", "c2"), 100, t0), std::nullopt);
  EXPECT_EQ(budget.charge(turn("bob", "T"), 100, t0), std::nullopt);
}

TEST(VoiceBudget, LaterModelCallsOfATurnCountAsThatTurn) {
  VoiceBudget budget({100, 0});
  EXPECT_EQ(budget.charge(turn("alice", "T"), 60, t0), std::nullopt);
  EXPECT_EQ(budget.charge(turn("alice", "T#2"), 50, t0),
            "voice budget: 50 more characters would pass the limit of 100 per turn (60 used in this turn)");
  EXPECT_EQ(budget.charge(turn("alice", "T#3"), 40, t0), std::nullopt);
  // Only "#<digits>" at the end is the agent's call number.
  EXPECT_EQ(budget.charge(turn("alice", "T#x"), 100, t0), std::nullopt);
}

TEST(VoiceBudget, PerMinuteIsASlidingWindowPerUserAcrossTurns) {
  VoiceBudget budget({0, 100});
  EXPECT_EQ(budget.charge(turn("alice", "T1"), 60, t0), std::nullopt);
  EXPECT_EQ(budget.charge(turn("alice", "T2", "c2"), 30, t0 + 10s), std::nullopt);
  EXPECT_EQ(
      budget.charge(turn("alice", "T3"), 20, t0 + 20s),
      "voice budget: 20 more characters would pass the limit of 100 per user per minute (90 used in the "
      "last minute); try again in 40 s");
  EXPECT_EQ(budget.charge(turn("bob", "T3"), 100, t0 + 20s), std::nullopt) << "users share a window";
  EXPECT_NE(budget.charge(turn("alice", "T3"), 20, t0 + 59s), std::nullopt);
  // A minute after the first charge it has left the window: 30 used.
  EXPECT_EQ(budget.charge(turn("alice", "T4"), 70, t0 + 60s), std::nullopt);
  EXPECT_NE(budget.charge(turn("alice", "T4"), 1, t0 + 61s), std::nullopt);
  EXPECT_EQ(
      budget.charge(turn("alice", "T5"), 101, t0 + 300s),
      "voice budget: 101 more characters would pass the limit of 100 per user per minute (0 used in the "
      "last minute); this note alone is over it");
}

TEST(VoiceBudget, ZeroIsUnlimitedAndAClockSetBackDoesNotBlock) {
  VoiceBudget unlimited({0, 0});
  for (int i = 0; i < 100; ++i) EXPECT_EQ(unlimited.charge(turn("alice", "T"), 1'000'000, t0), std::nullopt);
  VoiceBudget budget({0, 100});
  EXPECT_EQ(budget.charge(turn("alice", "T"), 100, t0), std::nullopt);
  EXPECT_EQ(budget.charge(turn("alice", "T"), 100, t0 - 1h), std::nullopt);
}

TEST(VoiceBudget, CharactersAreCodePoints) {
  EXPECT_EQ(VoiceBudget::characters(""), 0u);
  EXPECT_EQ(VoiceBudget::characters("hello"), 5u);
  EXPECT_EQ(VoiceBudget::characters("héllo wörld"), 11u);
  EXPECT_EQ(VoiceBudget::characters("日本語 🎉"), 5u);
}

// ---------------------------------------------------------------- through the voice action

class VoiceFloodTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_wav(dir_ / "note.wav");
    const fs::path espeak = dir_ / "espeak-ng";
    {
      std::ofstream out(espeak);
      out << "#!/bin/sh\necho run >> '" << (dir_ / "runs").string() << "'\ncat > /dev/null\ncat '"
          << (dir_ / "note.wav").string() << "'\n";
    }
    fs::permissions(espeak, fs::perms::owner_all);
    VoiceSynth::Options options;
    options.espeak_binary = espeak.string();
    options.temp_dir = dir_;
    add_voice_handlers(handlers_, VoiceConfig{std::make_shared<const VoiceSynth>(options),
                                              std::make_shared<VoiceBudget>(VoiceLimits{2000, 6000})});
    auto opened = store::sqlite::SqliteStore::open(":memory:");
    ASSERT_TRUE(opened.ok());
    store_ = std::move(*opened);
  }

  // 0.1 s of a 440 Hz tone, 16-bit mono at 22050 Hz, as espeak-ng writes it.
  static void write_wav(const fs::path& path) {
    constexpr int kRate = 22050, kSamples = 2205;
    std::string data;
    for (int i = 0; i < kSamples; ++i) {
      const auto v = static_cast<std::int16_t>(8000 * std::sin(2 * std::numbers::pi * 440 * i / kRate));
      data.push_back(static_cast<char>(v & 0xff));
      data.push_back(static_cast<char>((v >> 8) & 0xff));
    }
    auto u32 = [](std::uint32_t v) {
      return std::string{static_cast<char>(v & 0xff), static_cast<char>(v >> 8 & 0xff),
                         static_cast<char>(v >> 16 & 0xff), static_cast<char>(v >> 24 & 0xff)};
    };
    auto u16 = [](std::uint16_t v) {
      return std::string{static_cast<char>(v & 0xff), static_cast<char>(v >> 8)};
    };
    std::ofstream out(path, std::ios::binary);
    out << "RIFF" << u32(static_cast<std::uint32_t>(36 + data.size())) << "WAVE"
        << "fmt " << u32(16) << u16(1) << u16(1) << u32(kRate) << u32(kRate * 2) << u16(2) << u16(16)
        << "data" << u32(static_cast<std::uint32_t>(data.size())) << data;
  }

  int espeak_runs() const {
    std::ifstream in(dir_ / "runs");
    int n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  }

  // A reply of `notes` voice notes of 500 characters each, all different.
  static std::string flood(int notes, int first = 0) {
    std::string reply = "Listen.";
    for (int i = first; i < first + notes; ++i) {
      std::string text = "Note " + std::to_string(i) + " ";
      text.resize(500, 'a');
      reply += " <voice>" + text + "</voice>";
    }
    return reply;
  }

  test::TurnRun turn_at(const std::string& reply, const std::string& turn_id, store::TimePoint when) {
    exec::ExecOptions options;
    options.now = [when] { return when; };
    return test::run_turn(reply, handlers_, *store_, {"alice", "conv-1", turn_id}, options);
  }

  static int count(const exec::TurnReport& report, exec::ResultStatus status) {
    int n = 0;
    for (const auto& r : report.results) n += r.status == status;
    return n;
  }

  test::TempDir tmp_{"sigil-voice-budget"};
  const fs::path dir_ = tmp_.path();
  exec::HandlerTable handlers_;
  std::unique_ptr<store::Store> store_;
};

TEST_F(VoiceFloodTest, AFloodStopsAtTheTurnBudgetBeforeEspeakRuns) {
  const test::TurnRun run = turn_at(flood(10), "turn-1", t0);
  ASSERT_EQ(run.report.results.size(), 10u);
  EXPECT_EQ(count(run.report, exec::ResultStatus::Ok), 4);  // 4 × 500 = 2,000 characters
  for (std::size_t i = 4; i < 10; ++i) {
    EXPECT_EQ(run.report.results[i].status, exec::ResultStatus::Error);
    EXPECT_EQ(
        run.report.results[i].message,
        "voice: voice budget: 500 more characters would pass the limit of 2000 per turn (2000 used in this "
        "turn)");
  }
  EXPECT_EQ(espeak_runs(), 4) << "espeak-ng ran for a note over the budget";
  EXPECT_NE(
      run.model_message.find("[5] voice: error: voice budget: 500 more characters would pass the limit of "
                             "2000 per turn"),
      std::string::npos)
      << run.model_message;
  EXPECT_EQ(run.report.json().at("results").as_array()[9].at("message").as_string(),
            run.report.results[9].message)
      << "the refusal is in the turn report";
}

TEST_F(VoiceFloodTest, TheMinuteBudgetSpansTurnsAndTheNextMinuteAllowsAgain) {
  EXPECT_EQ(count(turn_at(flood(4, 0), "turn-1", t0).report, exec::ResultStatus::Ok), 4);
  EXPECT_EQ(count(turn_at(flood(4, 4), "turn-2", t0 + 10s).report, exec::ResultStatus::Ok), 4);
  EXPECT_EQ(count(turn_at(flood(4, 8), "turn-3", t0 + 20s).report, exec::ResultStatus::Ok), 4);
  // 6,000 characters in the last minute: the next note waits until turn-1's notes leave the window.
  const test::TurnRun full = turn_at(flood(2, 12), "turn-4", t0 + 30s);
  ASSERT_EQ(full.report.results.size(), 2u);
  EXPECT_EQ(
      full.report.results[0].message,
      "voice: voice budget: 500 more characters would pass the limit of 6000 per user per minute (6000 used "
      "in the last minute); try again in 30 s");
  EXPECT_EQ(count(full.report, exec::ResultStatus::Error), 2);
  EXPECT_EQ(espeak_runs(), 12);
  // A minute after turn-1: its 2,000 characters have left the window, so 4 more notes fit.
  const test::TurnRun later = turn_at(flood(5, 14), "turn-5", t0 + 61s);
  EXPECT_EQ(count(later.report, exec::ResultStatus::Ok), 4);
  EXPECT_EQ(later.report.results[4].status, exec::ResultStatus::Error);
  EXPECT_EQ(espeak_runs(), 16);
}

TEST_F(VoiceFloodTest, TextTheSynthesizerRefusesIsNotCharged) {
  std::string reply;
  for (int i = 0; i < 5; ++i) reply += "<voice>" + std::string(5000, 'x') + "</voice>";  // over 4,096 bytes
  const test::TurnRun refused = turn_at(reply, "turn-1", t0);
  ASSERT_EQ(refused.report.results.size(), 5u);
  EXPECT_NE(refused.report.results[0].message.find("text too long for a voice note"), std::string::npos)
      << refused.report.results[0].message;
  EXPECT_EQ(espeak_runs(), 0);
  EXPECT_EQ(count(turn_at(flood(4), "turn-1", t0).report, exec::ResultStatus::Ok), 4)
      << "refused text used up the budget";
}

}  // namespace
}  // namespace sigil::actions
