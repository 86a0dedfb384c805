// Albums on Telegram: photos or files sent together arrive as one message per item, a moment apart, each
// with the same media_group_id (the caption, if any, on one of them). The user sent one message, so sigil
// answers it once: the items are gathered and their turn starts when no further item has come for a while.
//
// What it promises:
// - add() holds an item; the album goes to `run` (on the gatherer's own thread) `quiet` after its last item
//   came, or at once when it holds kMostAlbumItems (Telegram's limit), its items in the order they came.
// - gathering() says whether an album of that chat is being gathered now (a group's later items do not
//   mention the bot: they belong to the album the first one started).
// - stop() ends the thread; albums not run yet are dropped here, their items stay recorded and unfinished in
//   the store, so the next start resumes them (albums_of puts them together again).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sigil/channels/telegram/update_poller.h"

namespace sigil::app {

inline constexpr std::size_t kMostAlbumItems = 10;

class TelegramAlbums {
 public:
  using Items = std::vector<channels::telegram::InboundMessage>;
  TelegramAlbums(std::chrono::milliseconds quiet, std::function<void(Items)> run);
  ~TelegramAlbums();
  TelegramAlbums(const TelegramAlbums&) = delete;
  TelegramAlbums& operator=(const TelegramAlbums&) = delete;

  void add(channels::telegram::InboundMessage item);
  bool gathering(std::int64_t chat_id, const std::string& media_group_id) const;
  void stop();

 private:
  using Clock = std::chrono::steady_clock;
  struct Album {
    Items items;
    Clock::time_point due;
  };
  void loop(const std::stop_token& stop);

  std::chrono::milliseconds quiet_;
  std::function<void(Items)> run_;
  mutable std::mutex mu_;
  std::condition_variable_any cv_;
  std::map<std::string, Album> albums_;  // by "<chat id>/<media_group_id>"
  std::uint64_t changes_ = 0;            // add()s so far: wakes the thread to look at the albums again
  std::jthread thread_;                  // last: it starts once the rest is ready
};

// The messages as turns: each album's items together (at the place of its first item), every other message
// alone. For the records a restart resumes.
std::vector<TelegramAlbums::Items> albums_of(std::vector<channels::telegram::InboundMessage> messages);

}  // namespace sigil::app
