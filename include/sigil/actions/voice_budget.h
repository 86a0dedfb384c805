// How much text may become speech (docs/security.md, "Voice budget"). espeak-ng's CPU time and the notes'
// size grow with the text, and a model (or a user steering it) could otherwise ask for a voice note on
// every line of every reply. Two limits, in characters (Unicode code points) of the notes' text:
// - per turn: every voice note of one turn; the agent runs a turn's later model calls as "T#2", "T#3"...
//   (agent.h), and those count as turn T, so the loop cap does not multiply the budget;
// - per user per minute: a sliding window of the last 60 s, shared by every turn and conversation of the
//   user, so many short turns cannot add up to more.
// 0 means unlimited. A note is charged to both when it is admitted (before espeak-ng runs, whether or not
// it then succeeds); a refused note charges nothing, so a smaller note may still pass.
//
// One VoiceBudget serves every turn (it lives with the handlers, not with a turn's executor). Thread-safe.
// Its memory is bounded by use: turns untouched for an hour and users with no charge in the last minute
// are forgotten (checked at most once a minute of the caller's clock).
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "sigil/exec/handler.h"
#include "sigil/store/store.h"

namespace sigil::actions {

struct VoiceLimits {
  std::size_t chars_per_turn = 2000;
  std::size_t chars_per_minute = 6000;  // per user
};

class VoiceBudget {
 public:
  explicit VoiceBudget(VoiceLimits limits) : limits_(limits) {}

  // Admits a note of `chars` characters for the turn and user of `ids` at `now`, and charges it; or
  // charges nothing and says why not, one line starting "voice budget: ", e.g.
  //   voice budget: 300 more characters would pass the limit of 2000 per turn (1900 used in this turn)
  //   voice budget: 300 more characters would pass the limit of 6000 per user per minute (5900 used in
  //   the last minute); try again in 42 s
  std::optional<std::string> charge(const exec::TurnIds& ids, std::size_t chars, store::TimePoint now);

  const VoiceLimits& limits() const noexcept { return limits_; }

  // Characters of UTF-8 text, as charged: code points (every byte that does not continue a sequence).
  static std::size_t characters(std::string_view text) noexcept;

 private:
  struct TurnUse {
    std::size_t chars = 0;
    store::TimePoint last{};
  };
  struct Window {
    std::deque<std::pair<store::TimePoint, std::size_t>> charges;  // oldest first
    std::size_t chars = 0;                                         // their sum
  };
  void expire(Window& window, store::TimePoint now) const;
  void forget_idle(store::TimePoint now);

  const VoiceLimits limits_;
  std::mutex mu_;
  std::map<std::string, TurnUse, std::less<>> turns_;  // user \0 conversation \0 turn (without "#n")
  std::map<std::string, Window, std::less<>> users_;
  store::TimePoint last_sweep_{};
};

}  // namespace sigil::actions
