// The process's log (sigil/log/log.h): nothing reaches a sink below its level, no sink means no logging.
#include "sigil/log/log.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sigil::log {
namespace {

struct Installed {
  std::vector<Record> records;
  explicit Installed(Level min) {
    install([this](const Record& r) { records.push_back(r); }, min);
  }
  ~Installed() { install(nullptr, Level::off); }
};

TEST(Log, RecordsBelowTheLevelNeverReachTheSink) {
  Installed sink(Level::warn);
  EXPECT_FALSE(enabled(Level::info));
  EXPECT_TRUE(enabled(Level::warn));
  EXPECT_TRUE(enabled(Level::error));
  write(Record{Level::info, "request", {}}.with("status", 200));
  write(Record{Level::error, "model-error", {}}.with("detail", "HTTP 500"));
  ASSERT_EQ(sink.records.size(), 1u);
  EXPECT_EQ(sink.records[0].event, "model-error");
  EXPECT_EQ(sink.records[0].fields.at(0), (std::pair<std::string, std::string>{"detail", "HTTP 500"}));
}

TEST(Log, WithoutASinkNothingIsEnabled) {
  install(nullptr, Level::debug);
  EXPECT_FALSE(enabled(Level::error));
  write(Record{Level::error, "x", {}});  // no sink: nothing happens
  Installed off(Level::off);
  EXPECT_FALSE(enabled(Level::error));
}

TEST(Log, LevelNamesRoundTrip) {
  for (Level l : {Level::debug, Level::info, Level::warn, Level::error, Level::off})
    EXPECT_EQ(level_from_string(to_string(l)), l);
  EXPECT_FALSE(level_from_string("INFO"));
  EXPECT_FALSE(level_from_string("verbose"));
}

}  // namespace
}  // namespace sigil::log
