// The `sigil parse` output (spec/cli-parse.md): a one-line summary of a reply, or its events as JSON lines.
#pragma once

#include <boost/json/object.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "sigil/parse/events.h"

namespace sigil::parse {

// Collects a reply's events; summary() is valid after on_end.
class SummarySink : public EventSink {
 public:
  void on_text(std::string_view text, bool hidden) override;
  void on_directive(const DirectiveEvent& directive) override;
  void on_diagnostic(const Diagnostic& diagnostic) override;
  void on_silence(std::uint64_t offset) override;
  void on_fallback() override;
  void on_end(bool silent) override;

  // {"text":…,"silent":…,"directives":[…],"diagnostics":[…]}: directives in reply order (first byte).
  boost::json::object summary() const;
  // What the user sees: empty when silent; the hidden text after a say-mode fallback (6.5).
  std::string clean_text() const;
  const std::vector<DirectiveEvent>& directives() const { return directives_; }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  bool silent() const { return silent_; }
  bool ended() const { return ended_; }

 private:
  std::string text_;
  std::string hidden_text_;
  std::vector<DirectiveEvent> directives_;
  std::vector<Diagnostic> diagnostics_;
  bool silent_ = false;
  bool fallback_ = false;
  bool ended_ = false;
};

// Writes each event as one JSON object per line, as it happens (`sigil parse --events`).
class EventsWriter : public EventSink {
 public:
  explicit EventsWriter(std::ostream& out) : out_(out) {}
  void on_text(std::string_view text, bool hidden) override;
  void on_directive(const DirectiveEvent& directive) override;
  void on_diagnostic(const Diagnostic& diagnostic) override;
  void on_silence(std::uint64_t offset) override;
  void on_fallback() override;
  void on_end(bool silent) override;

 private:
  std::ostream& out_;
};

// {"action":…,"args":…,"valid":…} plus "error" when invalid.
boost::json::object directive_json(const DirectiveEvent& directive);
boost::json::object diagnostic_json(const Diagnostic& diagnostic);
// A directive as an event line: {"event":"directive"} then directive_json's fields, "span" and
// "clean_offset" (`sigil parse --events`, and the event logs the fuzz and property tests compare).
boost::json::object directive_event_json(const DirectiveEvent& directive);

}  // namespace sigil::parse
