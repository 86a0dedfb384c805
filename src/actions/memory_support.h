// Helpers shared by the memory and archive handler families (src/actions/memory.cpp, archive.cpp): reading
// validated arguments defensively, and writing user text into one-line messages for the model.
#pragma once

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "actions/collapse_runs.h"
#include "sigil/exec/handler.h"
#include "sigil/store/store.h"
#include "sigil/text/ascii.h"
#include "sigil/text/utc_time.h"
#include "sigil/text/utf8.h"

namespace sigil::actions::memory_detail {

// The handler vocabulary both families name unqualified: each file brings this namespace in whole.
using exec::ActionContext;
using exec::Directive;
using exec::HandlerResult;
using text::ascii::trim;

inline bool has_line_break(std::string_view s) { return s.find_first_of("\r\n") != std::string_view::npos; }

// `s` as one line of at most about `max_bytes` bytes: runs of whitespace and control characters become one
// space (a message to the model is one line, whatever the stored text holds), and a longer text is cut at a
// UTF-8 boundary and marked with "…".
inline std::string one_line(std::string_view s, std::size_t max_bytes) {
  std::string out = collapse_runs(
      s,
      [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7F || c == ' ';
      },
      max_bytes);
  if (out.size() <= max_bytes) return out;
  out.resize(text::safe_cut(out, max_bytes));
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + "\u2026";
}

// A user's text inside a message: "…", one line, capped (facts may be 4 KiB; a message needs the gist).
inline std::string quote_text(std::string_view s, std::size_t max_bytes = 200) {
  return "\"" + one_line(s, max_bytes) + "\"";
}

inline std::string plural(std::size_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

// A number as a person writes it: 30, 1.5.
inline std::string number_text(double v) {
  if (std::abs(v) < 1e15 && v == std::floor(v)) return std::to_string(static_cast<std::int64_t>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// A written value inside a message: numbers as a person writes them, strings quoted, anything else as
// (capped) JSON text.
inline std::string shown(const boost::json::value& v) {
  if (v.is_int64()) return std::to_string(v.get_int64());
  if (v.is_uint64()) return std::to_string(v.get_uint64());
  if (v.is_double()) return number_text(v.get_double());
  if (v.is_string()) return quote_text(v.get_string(), 60);
  return one_line(boost::json::serialize(v), 60);
}

inline const boost::json::value* arg(const exec::Directive& d, std::string_view name) {
  return d.args.if_contains(name);
}

// Validation (spec 9) has already typed the arguments; handlers still check, since a handler may be called
// with arguments that never went through a parser.
inline std::optional<std::string_view> string_arg(const exec::Directive& d, std::string_view name) {
  const boost::json::value* v = arg(d, name);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string_view(v->get_string());
}

// A string argument without its surrounding white space; "" when it is missing (or not a string).
inline std::string_view trimmed_arg(const exec::Directive& d, std::string_view name) {
  const auto raw = string_arg(d, name);
  return raw ? trim(*raw) : std::string_view();
}

inline std::optional<double> number_of(const boost::json::value& v) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  if (v.is_double()) return v.get_double();
  return std::nullopt;
}

inline std::optional<std::int64_t> integer_of(const boost::json::value& v) {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64()) {
    if (v.get_uint64() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return std::numeric_limits<std::int64_t>::max();
    return static_cast<std::int64_t>(v.get_uint64());
  }
  if (v.is_double()) {
    const double d = v.get_double();
    if (d == std::floor(d) && std::abs(d) < 9e18) return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

using text::iso_utc;
using text::utc_format;
using text::utc_minute;

// The one-line error for a store failure: what was being done, then the store's own words.
inline exec::HandlerResult store_failed(std::string_view action, std::string_view doing,
                                        std::string_view error) {
  return exec::HandlerResult::error(std::string(action) + ": could not " + std::string(doing) + ": " +
                                    one_line(error, 300));
}

// A stop was requested (time-out): nothing more is written, and what is returned is discarded anyway.
inline exec::HandlerResult stopped(std::string_view action) {
  return exec::HandlerResult::error(std::string(action) + ": stopped before it finished");
}

}  // namespace sigil::actions::memory_detail
