// A Server-Sent Events parser (the WHATWG "event stream" format) that accepts the stream in any pieces.
//
// TCP and HTTP chunking cut the stream anywhere: inside a field name, between CR and LF, inside a UTF-8
// sequence. The parser keeps only the unfinished line and the unfinished event between feeds, so every
// way of cutting the same bytes yields the same events. std only, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sigil::net {

struct SseEvent {
  std::string type;  // the `event:` field; "" means the default type ("message")
  std::string data;  // `data:` lines joined with '\n'
  std::string id;    // the last `id:` seen (it persists across events, as the format says)

  bool operator==(const SseEvent&) const = default;
};

class SseParser {
 public:
  // A line or an event's data longer than this is an error: a broken or hostile server must not make us
  // buffer without end.
  explicit SseParser(std::size_t max_event_bytes = 8 * 1024 * 1024) : max_event_bytes_(max_event_bytes) {}

  // Appends the events completed by `chunk` to `out`. After an error, feeds are ignored.
  void feed(std::string_view chunk, std::vector<SseEvent>& out);

  // End of stream: an event not ended by a blank line is dropped (the format says so).
  void finish() noexcept;

  bool failed() const noexcept { return failed_; }
  // Bytes seen so far (for messages such as "stream broke after N bytes").
  std::size_t bytes_seen() const noexcept { return bytes_seen_; }
  // The last `id:` seen, also on an event that carried no data (a "priming" event that only sets the id a
  // client resumes from with Last-Event-ID).
  const std::string& last_id() const noexcept { return last_id_; }
  // The last valid `retry:` value (milliseconds, at most a day), if the stream sent one.
  std::optional<std::uint64_t> retry_ms() const noexcept { return retry_ms_; }

  static constexpr std::uint64_t kMaxRetryMs = 24ull * 3600 * 1000;

 private:
  void process_line(std::string_view line, std::vector<SseEvent>& out);

  std::size_t max_event_bytes_;
  std::string line_;        // the unfinished line
  bool after_cr_ = false;   // the last byte was CR: a following LF belongs to the same line end
  bool at_start_ = true;    // a UTF-8 BOM is allowed (and dropped) only at the very start
  std::string bom_prefix_;  // the bytes of a BOM seen so far at the start
  std::string data_;
  bool has_data_ = false;
  std::string type_;
  std::string last_id_;
  bool failed_ = false;
  std::size_t bytes_seen_ = 0;
  std::optional<std::uint64_t> retry_ms_;
};

}  // namespace sigil::net
