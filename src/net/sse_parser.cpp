#include "sigil/net/sse_parser.h"

#include <algorithm>

namespace sigil::net {

namespace {
constexpr std::string_view kBom = "\xEF\xBB\xBF";
}

void SseParser::feed(std::string_view chunk, std::vector<SseEvent>& out) {
  if (failed_) return;
  bytes_seen_ += chunk.size();
  if (at_start_) {
    // The BOM itself may arrive split, so collect up to three bytes before deciding.
    while (!chunk.empty() && bom_prefix_.size() < kBom.size()) {
      bom_prefix_.push_back(chunk.front());
      chunk.remove_prefix(1);
      if (kBom.substr(0, bom_prefix_.size()) != bom_prefix_) break;
    }
    if (bom_prefix_ == kBom) {
      at_start_ = false;
    } else if (kBom.substr(0, bom_prefix_.size()) != bom_prefix_) {
      // Not a BOM: what we held is ordinary stream content.
      at_start_ = false;
      std::string held = std::move(bom_prefix_);
      bom_prefix_.clear();
      bytes_seen_ -= held.size();  // feed() counts them again
      feed(held, out);
      if (failed_) return;
    } else {
      return;  // still a possible BOM prefix and the chunk is used up
    }
  }

  std::size_t pos = 0;
  while (pos < chunk.size()) {
    if (after_cr_) {
      after_cr_ = false;
      if (chunk[pos] == '\n') {
        ++pos;
        continue;
      }
    }
    std::size_t end = chunk.find_first_of("\r\n", pos);
    if (end == std::string_view::npos) {
      line_.append(chunk.substr(pos));
      if (line_.size() > max_event_bytes_) failed_ = true;
      return;
    }
    std::string_view line;
    if (line_.empty()) {
      line = chunk.substr(pos, end - pos);
    } else {
      line_.append(chunk.substr(pos, end - pos));
      line = line_;
    }
    if (line.size() > max_event_bytes_) {
      failed_ = true;
      return;
    }
    after_cr_ = chunk[end] == '\r';
    process_line(line, out);
    line_.clear();
    if (failed_) return;
    pos = end + 1;
  }
}

void SseParser::process_line(std::string_view line, std::vector<SseEvent>& out) {
  if (line.empty()) {
    if (has_data_) {
      if (!data_.empty() && data_.back() == '\n') data_.pop_back();
      out.push_back(SseEvent{std::move(type_), std::move(data_), last_id_});
    }
    data_.clear();
    type_.clear();
    has_data_ = false;
    return;
  }
  if (line.front() == ':') return;  // a comment, e.g. ": OPENROUTER PROCESSING" keep-alives
  std::string_view field = line;
  std::string_view value;
  if (auto colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    data_.append(value);
    data_.push_back('\n');
    has_data_ = true;
    if (data_.size() > max_event_bytes_) failed_ = true;
  } else if (field == "event") {
    type_.assign(value);
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) last_id_.assign(value);
  } else if (field == "retry") {
    // Only ASCII digits count (the format says so); a reconnecting client (MCP's Streamable HTTP) waits
    // this long. Values past a day are clamped: no caller waits longer, and the number cannot overflow.
    if (!value.empty() && value.size() <= 12 &&
        value.find_first_not_of("0123456789") == std::string_view::npos) {
      std::uint64_t ms = 0;
      for (char c : value) ms = ms * 10 + static_cast<std::uint64_t>(c - '0');
      retry_ms_ = std::min<std::uint64_t>(ms, kMaxRetryMs);
    }
  }
  // Unknown fields are ignored.
}

void SseParser::finish() noexcept {
  line_.clear();
  data_.clear();
  type_.clear();
  has_data_ = false;
  after_cr_ = false;
}

}  // namespace sigil::net
