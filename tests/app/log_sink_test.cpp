// The log's lines (app/log_sink.h): text that splits back into its fields, JSON one object a line.
#include "app/log_sink.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <sstream>

namespace sigil::app {
namespace {

const log::Record kRecord = log::Record{log::Level::warn, "model-error", {}}
                                .with("conversation", "c-1")
                                .with("detail", "model: HTTP 400 from api: \"bad\" a=b\nnext")
                                .with("empty", "");

TEST(LogSink, TextQuotesWhatWouldNotSplit) {
  EXPECT_EQ(format_record(kRecord, LogFormat::text, "2026-11-27T00:00:00.000Z"),
            R"(2026-11-27T00:00:00.000Z warn  model-error conversation=c-1 )"
            R"(detail="model: HTTP 400 from api: \"bad\" a=b\nnext" empty="")");
}

TEST(LogSink, JsonIsOneObjectALine) {
  const std::string line = format_record(kRecord, LogFormat::json, "T");
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const boost::json::object o = boost::json::parse(line).as_object();
  EXPECT_EQ(o.at("time").as_string(), "T");
  EXPECT_EQ(o.at("level").as_string(), "warn");
  EXPECT_EQ(o.at("event").as_string(), "model-error");
  EXPECT_EQ(o.at("detail").as_string(), "model: HTTP 400 from api: \"bad\" a=b\nnext");
}

TEST(LogSink, TheStreamSinkWritesOneLineARecord) {
  std::ostringstream out;
  log::install(stream_sink(out, LogFormat::text), log::Level::info);
  log::write(log::Record{log::Level::info, "turn", {}}.with("status", "ok"));
  log::write(log::Record{log::Level::debug, "hidden", {}});
  log::install(nullptr, log::Level::off);
  const std::string text = out.str();
  EXPECT_NE(text.find(" info  turn status=ok\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("hidden"), std::string::npos);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
}

}  // namespace
}  // namespace sigil::app
