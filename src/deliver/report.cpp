#include "sigil/deliver/report.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "sigil/text/enum_names.h"

namespace sigil::deliver {

namespace {
constexpr text::EnumNames<DeliveryNote::Outcome::Retracted> kOutcomeNames{
    {"fallback", "skipped", "failed", "split", "retracted"}, "fallback"};
}  // namespace

std::string_view to_string(DeliveryNote::Outcome outcome) { return kOutcomeNames.name(outcome); }

std::vector<std::string> DeliveryReport::lines() const {
  std::vector<std::string> out;
  out.reserve(notes.size());
  for (const DeliveryNote& n : notes) {
    std::string line(to_string(n.outcome));
    line += ": ";
    line += n.asked;
    line += ": ";
    line += n.done;
    if (!n.why.empty()) {
      line += " (";
      line += n.why;
      line += ")";
    }
    out.push_back(std::move(line));
  }
  return out;
}

boost::json::value DeliveryReport::json() const {
  boost::json::array arr;
  for (const DeliveryNote& n : notes) {
    arr.push_back(boost::json::object{
        {"outcome", to_string(n.outcome)}, {"asked", n.asked}, {"done", n.done}, {"why", n.why}});
  }
  return boost::json::object{{"notes", std::move(arr)}, {"messages", messages_sent}, {"edits", edits},
                             {"files", files_sent},     {"reactions", reactions},    {"waits", waits}};
}

}  // namespace sigil::deliver
