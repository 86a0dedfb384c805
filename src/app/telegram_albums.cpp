#include "app/telegram_albums.h"

#include <utility>

namespace sigil::app {
namespace {

std::string album_key(std::int64_t chat_id, const std::string& media_group_id) {
  return std::to_string(chat_id) + "/" + media_group_id;
}

}  // namespace

TelegramAlbums::TelegramAlbums(std::chrono::milliseconds quiet, std::function<void(Items)> run)
    : quiet_(quiet), run_(std::move(run)), thread_([this](const std::stop_token& stop) { loop(stop); }) {}

TelegramAlbums::~TelegramAlbums() { stop(); }

void TelegramAlbums::add(channels::telegram::InboundMessage item) {
  {
    std::lock_guard lock(mu_);
    Album& album = albums_[album_key(item.chat_id, item.media_group_id)];
    album.items.push_back(std::move(item));
    album.due = album.items.size() >= kMostAlbumItems ? Clock::now() : Clock::now() + quiet_;
    ++changes_;
  }
  cv_.notify_all();
}

bool TelegramAlbums::gathering(std::int64_t chat_id, const std::string& media_group_id) const {
  std::lock_guard lock(mu_);
  return albums_.contains(album_key(chat_id, media_group_id));
}

void TelegramAlbums::stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  cv_.notify_all();
  thread_.join();
}

void TelegramAlbums::loop(const std::stop_token& stop) {
  std::unique_lock lock(mu_);
  while (!stop.stop_requested()) {
    auto next = Clock::time_point::max();
    for (auto it = albums_.begin(); it != albums_.end();) {
      if (it->second.due > Clock::now()) {
        next = std::min(next, it->second.due);
        ++it;
        continue;
      }
      Items items = std::move(it->second.items);
      it = albums_.erase(it);
      lock.unlock();
      run_(std::move(items));  // starts the turn; it runs on the agent's threads
      lock.lock();
      next = Clock::now();  // the map may have changed meanwhile: look again
      break;
    }
    const std::uint64_t seen = changes_;
    const auto changed = [&] { return changes_ != seen; };
    if (next == Clock::time_point::max()) {
      cv_.wait(lock, stop, changed);
    } else if (next > Clock::now()) {
      cv_.wait_until(lock, stop, next, changed);
    }
  }
}

std::vector<TelegramAlbums::Items> albums_of(std::vector<channels::telegram::InboundMessage> messages) {
  std::vector<TelegramAlbums::Items> turns;
  std::map<std::string, std::size_t> album_at;  // album key -> its index in turns
  for (auto& m : messages) {
    if (m.media_group_id.empty()) {
      turns.push_back({std::move(m)});
      continue;
    }
    const auto [it, fresh] = album_at.emplace(album_key(m.chat_id, m.media_group_id), turns.size());
    if (fresh) turns.emplace_back();
    turns[it->second].push_back(std::move(m));
  }
  return turns;
}

}  // namespace sigil::app
