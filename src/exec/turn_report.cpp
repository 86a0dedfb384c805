#include "sigil/exec/turn_report.h"

#include <array>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "sigil/text/enum_names.h"

namespace sigil::exec {

namespace {
constexpr text::EnumNames<ResultStatus::Duplicate> kStatusNames{{"ok", "error", "refused", "duplicate"},
                                                                "error"};

// The text fields a delivery of each op shows after its "op", in this order (turn_report.h).
struct DeliveryField {
  const char* key = nullptr;  // nullptr: no more fields
  std::string Delivery::*member = nullptr;
};
struct OpFields {
  Delivery::Op op;
  std::array<DeliveryField, 4> fields;
};
constexpr OpFields kOpFields[] = {
    {Delivery::Op::Text, {{{"text", &Delivery::text}}}},
    {Delivery::Op::File,
     {{{"path", &Delivery::path},
       {"kind", &Delivery::kind},
       {"caption", &Delivery::caption},
       {"sha256", &Delivery::sha256}}}},
    {Delivery::Op::Voice, {{{"path", &Delivery::path}}}},
    {Delivery::Op::Reaction, {{{"emoji", &Delivery::emoji}, {"message", &Delivery::message}}}},
    {Delivery::Op::Message,
     {{{"channel", &Delivery::channel}, {"chat", &Delivery::chat}, {"text", &Delivery::text}}}},
};
}  // namespace

std::string_view to_string(ResultStatus status) { return kStatusNames.name(status); }

boost::json::value delivery_json(const Delivery& d) {
  boost::json::object o;
  o["op"] = to_string(d.op);
  for (const OpFields& of : kOpFields) {
    if (of.op != d.op) continue;
    for (const DeliveryField& f : of.fields)
      if (f.key != nullptr) o[f.key] = d.*f.member;
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
