#include "app/log_sink.h"

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace sigil::app {

namespace {

bool needs_quotes(std::string_view v) {
  if (v.empty()) return true;
  for (const char c : v)
    if (c == ' ' || c == '"' || c == '=' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  return false;
}

std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];  // roomy: the compiler cannot see that every field has its usual width
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace

std::string format_record(const log::Record& record, LogFormat format, std::string_view time) {
  namespace json = boost::json;
  if (format == LogFormat::json) {
    json::object o;
    o["time"] = time;
    o["level"] = log::to_string(record.level);
    o["event"] = record.event;
    for (const auto& [key, value] : record.fields) o[key] = value;
    return json::serialize(o);
  }
  std::string line(time);
  std::string level(log::to_string(record.level));
  level.resize(5, ' ');
  line += ' ';
  line += level;
  line += ' ';
  line += record.event;
  for (const auto& [key, value] : record.fields) {
    line += ' ';
    line += key;
    line += '=';
    line += needs_quotes(value) ? json::serialize(json::string(value)) : value;
  }
  return line;
}

log::Sink stream_sink(std::ostream& out, LogFormat format) {
  return [&out, format](const log::Record& record) {
    out << format_record(record, format, utc_now()) << '\n';
    out.flush();
  };
}

}  // namespace sigil::app
