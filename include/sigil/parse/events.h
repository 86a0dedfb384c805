// What the streaming parser tells its caller, as it happens.
//
// Promise: for one reply, the sequence of directive, diagnostic and silence events, and the concatenation of
// text events, are the same however the reply is split into chunks; only where text events split may change
// (spec 11.2). Text events never contain a byte of markup (11.1) and never end inside a UTF-8 sequence.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace sigil::parse {

// Why the model stopped writing (spec 11.6): `Stop` also covers `tool_calls`; `Length` covers
// `content_filter`.
enum class FinishReason : unsigned char { Stop, Length };

struct DirectiveEvent {
  std::string action;  // canonical name (spec 13); `mcp` for MCP tools
  bool valid = false;
  std::string error;             // one line, when !valid
  std::uint64_t span_begin = 0;  // byte offsets of the markup in the reply
  std::uint64_t span_end = 0;
  std::uint64_t clean_offset = 0;  // clean bytes committed when its first byte arrived (11.5)
  int spelling = -1;               // the grammar's spelling index, -1 for MCP
  bool interrupts = false;         // a valid interrupting directive (12.2)

  // Canonical names; converted values, or as written when invalid (9.4).
  const boost::json::object& args() const { return args_; }
  void set_args(boost::json::object args) { args_ = std::move(args); }
  // Exchanges the arguments with `args` (a caller that keeps both objects keeps their storage).
  void swap_args(boost::json::object& args) { args_.swap(args); }

 private:
  boost::json::object args_;
};

struct Diagnostic {
  std::string code;      // stable: see docs/directives.md "Diagnostics"
  std::uint64_t offset;  // byte offset in the reply
  std::string message;   // one line for people
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  // Clean text. `hidden`: say mode, text outside say blocks (spec 6.1, 6.5).
  virtual void on_text(std::string_view text, bool hidden) = 0;
  virtual void on_directive(const DirectiveEvent& directive) = 0;
  virtual void on_diagnostic(const Diagnostic& diagnostic) = 0;
  // The reply became silent (section 7). `offset`: a tag sentinel's first byte, reported as it completes;
  // for the line rules (7.3), which judge the whole clean text, the end of the reply, reported at its end.
  virtual void on_silence(std::uint64_t offset) = 0;
  // Say mode: no say block, no valid directive and no tag sentinel: the hidden text is the reply (6.5).
  virtual void on_fallback() = 0;
  virtual void on_end(bool silent) = 0;
};

}  // namespace sigil::parse
