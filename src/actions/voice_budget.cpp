#include "sigil/actions/voice_budget.h"

#include <algorithm>
#include <chrono>
#include <iterator>

namespace sigil::actions {
namespace {

using namespace std::chrono_literals;

constexpr auto kWindow = 60s;
constexpr auto kTurnMemory = 1h;  // a turn untouched this long is forgotten (its per-turn count with it)
constexpr auto kSweepEvery = 60s;

// The turn a charge belongs to: "T#n" (the agent's later model calls of turn T) counts as T.
std::string turn_key(const exec::TurnIds& ids) {
  std::string_view turn = ids.turn;
  if (const std::size_t hash = turn.rfind('#');
      hash != std::string_view::npos && hash + 1 < turn.size() &&
      turn.find_first_not_of("0123456789", hash + 1) == std::string_view::npos)
    turn = turn.substr(0, hash);
  std::string key;
  key.reserve(ids.user.size() + ids.conversation.size() + turn.size() + 2);
  key.append(ids.user).push_back('\0');
  key.append(ids.conversation).push_back('\0');
  key.append(turn);
  return key;
}

}  // namespace

std::size_t VoiceBudget::characters(std::string_view text) noexcept {
  std::size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// The window is (now - 60 s, now]. A charge "in the future" (the wall clock was set back) is dropped
// too: kept, it would block the user until the clock caught up, possibly for hours.
void VoiceBudget::expire(Window& window, store::TimePoint now) const {
  auto& q = window.charges;
  while (!q.empty() && q.front().first <= now - kWindow) {
    window.chars -= q.front().second;
    q.pop_front();
  }
  while (!q.empty() && q.back().first > now) {
    window.chars -= q.back().second;
    q.pop_back();
  }
}

void VoiceBudget::forget_idle(store::TimePoint now) {
  if (now >= last_sweep_ && now - last_sweep_ < kSweepEvery) return;
  last_sweep_ = now;
  std::erase_if(turns_, [&](const auto& entry) {
    const store::TimePoint last = entry.second.last;
    return last <= now - kTurnMemory || last > now;
  });
  for (auto it = users_.begin(); it != users_.end();) {
    expire(it->second, now);
    it = it->second.charges.empty() ? users_.erase(it) : std::next(it);
  }
}

std::optional<std::string> VoiceBudget::charge(const exec::TurnIds& ids, std::size_t chars,
                                               store::TimePoint now) {
  std::lock_guard lock(mu_);
  forget_idle(now);
  const std::string key = turn_key(ids);
  auto turn = turns_.find(key);
  const std::size_t turn_used = turn != turns_.end() ? turn->second.chars : 0;
  if (limits_.chars_per_turn != 0 && turn_used + chars > limits_.chars_per_turn)
    return "voice budget: " + std::to_string(chars) + " more characters would pass the limit of " +
           std::to_string(limits_.chars_per_turn) + " per turn (" + std::to_string(turn_used) +
           " used in this turn)";

  Window* window = nullptr;
  if (limits_.chars_per_minute != 0) {
    window = &users_[ids.user];
    expire(*window, now);
    if (window->chars + chars > limits_.chars_per_minute) {
      std::string why = "voice budget: " + std::to_string(chars) +
                        " more characters would pass the limit of " +
                        std::to_string(limits_.chars_per_minute) + " per user per minute (" +
                        std::to_string(window->chars) + " used in the last minute)";
      if (chars > limits_.chars_per_minute) return why + "; this note alone is over it";
      // When enough of the oldest charges have left the window for this note to fit.
      std::size_t left = window->chars;
      for (const auto& [at, n] : window->charges) {
        left -= n;
        if (left + chars <= limits_.chars_per_minute) {
          const auto wait = std::chrono::ceil<std::chrono::seconds>(at + kWindow - now);
          why += "; try again in " + std::to_string(std::max<long long>(wait.count(), 1)) + " s";
          break;
        }
      }
      if (window->charges.empty()) users_.erase(ids.user);
      return why;
    }
  }

  if (limits_.chars_per_turn != 0) {
    if (turn == turns_.end()) turn = turns_.emplace(key, TurnUse{}).first;
    turn->second.chars += chars;
    turn->second.last = now;
  }
  if (window != nullptr) {
    window->charges.emplace_back(now, chars);
    window->chars += chars;
  }
  return std::nullopt;
}

}  // namespace sigil::actions
