// The turns this server started and has not seen end: who owns each, whether its answer is out, and the
// barrier stop() waits on. No sockets: tested on its own (tests/server/turn_registry_test.cpp).
//
// What it promises:
// - new_id() is random ("web-" and 16 hex digits, text::random_id), never a counter: the executor's
//   exactly-once keys include the turn id, and a restarted server must never reuse an earlier process's
//   results.
// - open() registers a turn and counts it (opened_total()); it refuses (false) once stop_opening() was
//   called, so no turn starts while the server stops.
// - An id may be open twice: a completion's retry with the same Idempotency-Key may start while the first
//   request's turn, already answered, has not closed yet. answered() marks one unanswered entry;
//   running() is true while an unanswered entry exists; closed() removes one entry, an answered one first.
// - owns(): a client may cancel only the turns of its own (user, conversation).
// - wait_closed() waits until no turn is open (closed() wakes it) or the time is up.
// - Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace sigil::server {

class TurnRegistry {
 public:
  std::string new_id();

  bool open(const std::string& turn_id, const std::string& user, const std::string& conversation);
  // The turn's answer is complete and about to be sent; it closes a moment later (closed()). A retry with
  // the same Idempotency-Key that arrives in between is not "still running".
  void answered(const std::string& turn_id);
  bool running(const std::string& turn_id) const;
  void closed(const std::string& turn_id);
  bool owns(const std::string& turn_id, const std::string& user, const std::string& conversation) const;
  // Whether a turn of (user, conversation) is open and not yet answered.
  bool busy(const std::string& user, const std::string& conversation) const;

  // From now on open() refuses. False when it had been called before (stop() is idempotent through it).
  bool stop_opening();
  // The ids of the open turns (an id open twice is listed twice).
  std::vector<std::string> open_ids() const;
  // True when no turn is open, at once or within `limit`.
  bool wait_closed(std::chrono::milliseconds limit);

  std::uint64_t opened_total() const;

 private:
  struct OpenTurn {
    std::string user, conversation;
    bool answered = false;
  };

  mutable std::mutex mu_;
  std::condition_variable closed_cv_;
  bool stopping_ = false;
  std::multimap<std::string, OpenTurn> open_;
  std::uint64_t opened_total_ = 0;
};

}  // namespace sigil::server
