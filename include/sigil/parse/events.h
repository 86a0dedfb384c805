// What the streaming parser tells its caller, as it happens.
//
// Promise: for one reply, the sequence of directive, diagnostic and silence events, and the concatenation of
// text events, are the same however the reply is split into chunks; only where text events split may change
// (spec 11.2). Text events never contain a byte of markup (11.1) and never end inside a UTF-8 sequence.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace sigil::parse {

// Why the model stopped writing (spec 11.6): `Stop` also covers `tool_calls`; `Length` covers
// `content_filter`.
enum class FinishReason : unsigned char { Stop, Length };

// A string argument of a directive, not yet in JSON form: its canonical name and its value.
struct StringArg {
  std::string_view name;
  std::string_view value;
};

// Makes `args` hold each of `strings` as a JSON string under its name, in that order, replacing what it held.
// When it already has exactly these keys (the same action again) the values are assigned in place, so a
// reader that asks for every directive's arguments does not allocate for the common ones either.
inline void build_string_args(std::span<const StringArg> strings, boost::json::object& args) {
  bool same_keys = args.size() == strings.size();
  for (std::size_t i = 0; same_keys && i < strings.size(); ++i)
    same_keys = (args.begin() + i)->key() == strings[i].name;
  if (same_keys) {
    for (std::size_t i = 0; i < strings.size(); ++i) {
      boost::json::value& v = (args.begin() + i)->value();
      if (v.is_string()) {
        v.get_string().assign(strings[i].value);
      } else {
        v = strings[i].value;
      }
    }
    return;
  }
  args.clear();
  for (const StringArg& a : strings) args.emplace(a.name, a.value);
}

// A directive's arguments, possibly deferred (`defer_string_args`): built into JSON on the first get(), so a
// reader that never asks (a sink that counts, the bench) builds none. A copy or a move (construction or
// assignment) builds them first, so a stored copy never points into the parser. The first get() of a
// deferred value writes its cache: not to be called from two threads at once on one object (a copy's get()
// is a plain read).
class DirectiveArgs {
 public:
  DirectiveArgs() = default;
  DirectiveArgs(const DirectiveArgs& other) : args_(other.get()) {}
  DirectiveArgs(DirectiveArgs&& other) : args_(std::move(other.built())) {}
  DirectiveArgs& operator=(const DirectiveArgs& other) {
    if (this != &other) set(other.get());
    return *this;
  }
  DirectiveArgs& operator=(DirectiveArgs&& other) {
    if (this != &other) set(std::move(other.built()));
    return *this;
  }
  ~DirectiveArgs() = default;

  const boost::json::object& get() const {
    if (is_deferred_) {
      build_string_args(deferred_, args_);
      deferred_ = {};
      is_deferred_ = false;
    }
    return args_;
  }
  void set(boost::json::object args) {
    args_ = std::move(args);
    deferred_ = {};
    is_deferred_ = false;
  }
  // Sets the arguments to `args` and leaves in `args` what this object held (deferred arguments are dropped
  // unbuilt), so a caller that keeps both objects keeps their storage.
  void swap(boost::json::object& args) {
    args_.swap(args);
    deferred_ = {};
    is_deferred_ = false;
  }
  // The arguments are `strings` (each a JSON string), built when first asked; `strings` and what its views
  // point to must stay valid until then, or until this object is next set, copied or moved.
  void defer(std::span<const StringArg> strings) {
    deferred_ = strings;
    is_deferred_ = true;
  }
  bool deferred() const { return is_deferred_; }

 private:
  boost::json::object& built() {
    get();
    return args_;
  }

  mutable boost::json::object args_;
  mutable std::span<const StringArg> deferred_;
  mutable bool is_deferred_ = false;
};

// A directive as the parser reports it. Everything but the arguments is computed when it is reported; the
// arguments may be deferred (DirectiveArgs). Promises:
// - args() returns the same object whether they were deferred or set: canonical names; converted values, or
//   as written when invalid (9.4).
// - A deferred event's views are valid while the call that delivered it runs (on_directive, the inline
//   resolver). A copy or a move builds the arguments first (DirectiveArgs), so a stored copy never points
//   into the parser.
struct DirectiveEvent {
  std::string action;  // canonical name (spec 13); `mcp` for MCP tools
  bool valid = false;
  std::string error;             // one line, when !valid
  std::uint64_t span_begin = 0;  // byte offsets of the markup in the reply
  std::uint64_t span_end = 0;
  std::uint64_t clean_offset = 0;  // clean bytes committed when its first byte arrived (11.5)
  int spelling = -1;               // the grammar's spelling index, -1 for MCP
  bool interrupts = false;         // a valid interrupting directive (12.2)

  // Canonical names; converted values, or as written when invalid (9.4). Built here when deferred.
  const boost::json::object& args() const { return args_.get(); }
  void set_args(boost::json::object args) { args_.set(std::move(args)); }
  // Sets the arguments to `args` and leaves in `args` what the event's object held (deferred arguments are
  // dropped unbuilt), so a caller that keeps both objects keeps their storage.
  void swap_args(boost::json::object& args) { args_.swap(args); }
  // See DirectiveArgs::defer.
  void defer_string_args(std::span<const StringArg> strings) { args_.defer(strings); }
  // Whether the arguments are deferred and not yet built (for tests that count building).
  bool args_deferred() const { return args_.deferred(); }

 private:
  DirectiveArgs args_;
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
