// The last stage of a clean-text pipeline (private to parse/): counts the text and hands it to the sink.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sigil/parse/events.h"
#include "sigil/parse/parser.h"
#include "sigil/parse/tidier.h"

namespace sigil::parse {

// Counts clean text on its way to the sink, and never lets a text event end inside a UTF-8 sequence: the
// stages before it may cut anywhere, so an incomplete sequence at the end of a piece waits for the next.
class Emitter final : public TextSink {
 public:
  Emitter(EventSink& sink, bool hidden, ParserStats& stats) : sink_(sink), stats_(stats), hidden_(hidden) {}
  void clean_text(std::string_view s) override {
    if (s.empty()) return;
    count_ += s.size();
    stats_.text_bytes += s.size();
    if (pending_.empty() && static_cast<unsigned char>(s.back()) < 0x80) {
      // Nothing waiting and an ASCII last byte (no sequence open at the end): the piece as it is. The rest
      // is out of line, so that this path (every streamed piece) does not pay for its set-up.
      ++whole_pieces_;
      sink_.on_text(s, hidden_);
      return;
    }
    send_joined(s);
  }
  std::uint64_t count() const { return count_; }
  // Pieces passed on as they came, with nothing pending and an ASCII last byte (counted for tests).
  std::uint64_t whole_pieces() const { return whole_pieces_; }
  // Ready for the next reply (the pending buffer's capacity kept).
  void reset() noexcept {
    pending_.clear();
    count_ = 0;
    whole_pieces_ = 0;
  }

 private:
  // Sends what is pending with s, up to the last complete sequence; holds an incomplete one at the end.
  void send_joined(std::string_view s);

  EventSink& sink_;
  ParserStats& stats_;
  std::string pending_;
  std::uint64_t count_ = 0;
  std::uint64_t whole_pieces_ = 0;
  bool hidden_;
};

}  // namespace sigil::parse
