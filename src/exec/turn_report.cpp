#include "sigil/exec/turn_report.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "sigil/text/enum_names.h"

namespace sigil::exec {

namespace {
constexpr text::EnumNames<ResultStatus::Duplicate> kStatusNames{{"ok", "error", "refused", "duplicate"},
                                                                "error"};
}  // namespace

std::string_view to_string(ResultStatus status) { return kStatusNames.name(status); }

boost::json::value delivery_json(const Delivery& d) {
  boost::json::object o;
  o["op"] = to_string(d.op);
  switch (d.op) {
    case Delivery::Op::Text:
      o["text"] = d.text;
      break;
    case Delivery::Op::File:
      o["path"] = d.path;
      o["kind"] = d.kind;
      o["caption"] = d.caption;
      o["sha256"] = d.sha256;
      break;
    case Delivery::Op::Voice:
      o["path"] = d.path;
      break;
    case Delivery::Op::Reaction:
      o["emoji"] = d.emoji;
      o["message"] = d.message;
      break;
    case Delivery::Op::Message:
      o["channel"] = d.channel;
      o["chat"] = d.chat;
      o["text"] = d.text;
      break;
  }
  return o;
}

boost::json::value TurnReport::json() const {
  boost::json::array ds;
  for (const Delivery& d : deliveries) ds.push_back(delivery_json(d));
  boost::json::array rs;
  for (const ResultEntry& r : results) {
    boost::json::object o;
    o["ordinal"] = r.ordinal;
    o["action"] = r.action;
    o["status"] = to_string(r.status);
    o["message"] = r.message;
    o["result"] = r.result;
    if (!r.notes.empty()) {
      boost::json::array notes;
      for (const std::string& n : r.notes) notes.push_back(boost::json::string(n));
      o["notes"] = std::move(notes);
    }
    rs.push_back(std::move(o));
  }
  boost::json::object out;
  out["deliveries"] = std::move(ds);
  out["results"] = std::move(rs);
  if (silent) out["silent"] = true;
  if (late_silence) out["late_silence"] = true;
  return out;
}

}  // namespace sigil::exec
