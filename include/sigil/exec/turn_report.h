// What happened in one turn: what the user saw and each directive's result, in reply order.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/exec/handler.h"

namespace sigil::exec {

enum class ResultStatus : unsigned char {
  Ok,
  Error,      // the handler failed, timed out, or there is no handler
  Refused,    // not run: invalid directive, or its exactly-once key is in doubt / already running
  Duplicate,  // not run: its exactly-once key completed earlier; the stored result is reused
};
std::string_view to_string(ResultStatus status);

struct ResultEntry {
  int ordinal = 0;
  std::string action;
  ResultStatus status = ResultStatus::Ok;
  std::string message;
  boost::json::value result;
  // Things worth knowing that are not failures, e.g. "duplicate-attachment: <path>" (12.4).
  std::vector<std::string> notes;
};

struct TurnReport {
  std::vector<Delivery> deliveries;  // as sent to the outbox; consecutive text pieces merged
  std::vector<ResultEntry> results;  // by ordinal
  bool silent = false;               // the reply was silent (spec 7): its text was not (or no longer) shown
  bool late_silence = false;         // silent after some text had gone out (12.7)

  // {"deliveries":[{"op":"text","text":…},{"op":"file","path":…,"kind":…,"caption":…,"sha256":…},
  //   {"op":"voice","path":…},{"op":"reaction","emoji":…,"message":…},
  //   {"op":"message","channel":…,"chat":…,"text":…}],
  //  "results":[{"ordinal":N,"action":…,"status":"ok|error|refused|duplicate","message":…,"result":…}]}
  // A result has "notes":[…] only when it has notes. "silent": true (and "late_silence": true) only when so.
  boost::json::value json() const;
};

boost::json::value delivery_json(const Delivery& delivery);

}  // namespace sigil::exec
