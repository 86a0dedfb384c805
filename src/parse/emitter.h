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
    if (!pending_.empty()) {
      pending_.append(s);
      std::string out = std::move(pending_);
      pending_.clear();
      send(out);
      return;
    }
    send(s);
  }
  std::uint64_t count() const { return count_; }
  // Ready for the next reply (the pending buffer's capacity kept).
  void reset() noexcept {
    pending_.clear();
    count_ = 0;
  }

 private:
  // Where an incomplete UTF-8 sequence at the end of `s` begins (s.size() when there is none).
  static std::size_t complete_prefix(std::string_view s) {
    const std::size_t n = s.size();
    for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
      const auto b = static_cast<unsigned char>(s[n - back]);
      if ((b & 0xC0) == 0x80) continue;  // a continuation byte: keep looking for its lead
      const std::size_t need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
      return need > back ? n - back : n;
    }
    return n;
  }
  void send(std::string_view s) {
    const std::size_t cut = complete_prefix(s);
    if (cut < s.size()) pending_.assign(s.substr(cut));
    if (cut > 0) sink_.on_text(s.substr(0, cut), hidden_);
  }

  EventSink& sink_;
  ParserStats& stats_;
  std::string pending_;
  std::uint64_t count_ = 0;
  bool hidden_;
};

}  // namespace sigil::parse
