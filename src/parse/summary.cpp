#include "sigil/parse/summary.h"

#include <algorithm>

#include "sigil/parse/json_text.h"

namespace sigil::parse {

boost::json::object directive_json(const DirectiveEvent& d) {
  boost::json::object o;
  o["action"] = d.action;
  o["args"] = d.args();
  o["valid"] = d.valid;
  if (!d.valid) o["error"] = d.error;
  return o;
}

boost::json::object directive_event_json(const DirectiveEvent& d) {
  boost::json::object o;
  o["event"] = "directive";
  for (auto& kv : directive_json(d)) o[kv.key()] = kv.value();
  o["span"] = boost::json::array{d.span_begin, d.span_end};
  o["clean_offset"] = d.clean_offset;
  return o;
}

boost::json::object diagnostic_json(const Diagnostic& d) {
  boost::json::object o;
  o["code"] = d.code;
  o["offset"] = d.offset;
  o["message"] = d.message;
  return o;
}

void SummarySink::on_text(std::string_view text, bool hidden) {
  (hidden ? hidden_text_ : text_).append(text);
}
void SummarySink::on_directive(const DirectiveEvent& d) { directives_.push_back(d); }
void SummarySink::on_diagnostic(const Diagnostic& d) { diagnostics_.push_back(d); }
void SummarySink::on_silence(std::uint64_t) {}
void SummarySink::on_fallback() { fallback_ = true; }
void SummarySink::on_end(bool silent) {
  silent_ = silent;
  ended_ = true;
  // Reply order is the order of each directive's first byte (12.1); events came in completion order.
  auto by_first_byte = [](const DirectiveEvent& a, const DirectiveEvent& b) {
    return a.span_begin < b.span_begin;
  };
  if (!std::is_sorted(directives_.begin(), directives_.end(), by_first_byte))
    std::stable_sort(directives_.begin(), directives_.end(), by_first_byte);
}

std::string SummarySink::clean_text() const {
  if (silent_) return {};
  return fallback_ ? hidden_text_ : text_;
}

boost::json::object SummarySink::summary() const {
  boost::json::object o;
  o["text"] = clean_text();
  o["silent"] = silent_;
  boost::json::array ds;
  for (const DirectiveEvent& d : directives_) ds.push_back(directive_json(d));
  o["directives"] = std::move(ds);
  boost::json::array gs;
  for (const Diagnostic& g : diagnostics_) gs.push_back(diagnostic_json(g));
  o["diagnostics"] = std::move(gs);
  return o;
}

void EventsWriter::on_text(std::string_view text, bool hidden) {
  boost::json::object o;
  o["event"] = "text";
  o["text"] = text;
  if (hidden) o["hidden"] = true;
  out_ << json_text(o) << '\n';
}

void EventsWriter::on_directive(const DirectiveEvent& d) {
  out_ << json_text(directive_event_json(d)) << '\n';
}

void EventsWriter::on_diagnostic(const Diagnostic& g) {
  boost::json::object o;
  o["event"] = "diagnostic";
  for (auto& kv : diagnostic_json(g)) o[kv.key()] = kv.value();
  out_ << json_text(o) << '\n';
}

void EventsWriter::on_silence(std::uint64_t offset) {
  boost::json::object o;
  o["event"] = "silence";
  o["offset"] = offset;
  out_ << json_text(o) << '\n';
}

void EventsWriter::on_fallback() { out_ << "{\"event\":\"fallback\"}\n"; }

void EventsWriter::on_end(bool silent) {
  boost::json::object o;
  o["event"] = "end";
  o["silent"] = silent;
  out_ << json_text(o) << '\n' << std::flush;
}

}  // namespace sigil::parse
