// How `sigil serve` and `sigil chat` write the log (sigil/log/log.h): one line per record on a stream,
// as text or as JSON.
//
//   text: 2026-11-27T01:54:16.123Z info  request method=GET route=/v1/models status=200 ms=3
//   json: {"time":"2026-11-27T01:54:16.123Z","level":"info","event":"request","method":"GET",...}
//
// A text value with a space, a quote, an '=' or a control character is written in double quotes with
// JSON's escapes, so a line always splits back into its fields.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "sigil/log/log.h"

namespace sigil::app {

enum class LogFormat { text, json };

// The record as one line, without the line break.
std::string format_record(const log::Record& record, LogFormat format, std::string_view time);

// A sink that writes format_record() lines, with the current UTC time, to `out` (flushed per line).
log::Sink stream_sink(std::ostream& out, LogFormat format);

}  // namespace sigil::app
