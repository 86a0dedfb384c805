#include "server/media_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <boost/json.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "server/mime_types.h"
#include "sigil/store/sha256.h"
#include "sigil/text/random_id.h"

namespace sigil::server {
namespace {

constexpr std::size_t kChunk = 64 * 1024;

std::string errno_text() { return std::strerror(errno); }

// A voice note is played inline, so its type must be audio whatever the payload claims.
std::string media_type(const exec::Payload& payload, const std::string& name, bool voice) {
  std::string mime = payload.mime_type();
  if (mime.empty()) mime = mime_for_name(name);
  if (voice && !mime.starts_with("audio/")) mime = "audio/ogg";
  return mime;
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

std::string temp_suffix() { return text::random_id("", 16); }

// The metadata file of one (bytes, name) link: per name, so a later delivery of the same bytes under another
// name or kind never renames or retypes an earlier link.
std::string name_key(std::string_view name) {
  store::Sha256 h;
  h.update(name);
  return store::to_hex(h.finish()).substr(0, 16);
}

std::optional<MediaInfo> read_meta(const std::string& path, std::string_view hash) {
  std::ifstream meta(path, std::ios::binary);
  if (!meta) return std::nullopt;
  std::stringstream text;
  text << meta.rdbuf();
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(text.str(), ec);
  if (ec || !v.is_object()) return std::nullopt;
  MediaInfo info;
  info.sha256 = std::string(hash);
  const auto& o = v.as_object();
  if (auto* n = o.if_contains("name"); n && n->is_string()) info.name = std::string(n->as_string());
  if (auto* m = o.if_contains("mime"); m && m->is_string()) info.mime = std::string(m->as_string());
  if (auto* i = o.if_contains("inline"); i && i->is_bool()) info.inline_disposition = i->as_bool();
  return info;
}

// Written once: an existing file is kept (false, no error). Temp + link, so a reader never sees half of one
// and two writers never replace each other's.
Result<bool> write_meta_once(const std::string& path, const MediaInfo& info) {
  if (::access(path.c_str(), F_OK) == 0) return false;
  const std::string temp = path + "." + temp_suffix();
  {
    std::ofstream meta(temp, std::ios::binary | std::ios::trunc);
    meta << boost::json::serialize(
        boost::json::object{{"name", info.name}, {"mime", info.mime}, {"inline", info.inline_disposition}});
    meta.close();
    if (!meta) {
      ::unlink(temp.c_str());
      return Failure{std::string("media: cannot write " + path)};
    }
  }
  const int linked = ::link(temp.c_str(), path.c_str());
  const int err = errno;
  ::unlink(temp.c_str());
  if (linked == 0) return true;
  if (err == EEXIST) return false;
  return Failure{std::string("media: cannot write " + path + ": " + std::strerror(err))};
}

}  // namespace

MediaStore::MediaStore(std::string dir, std::size_t memory_limit, std::uint64_t disk_limit)
    : dir_(std::move(dir)), memory_limit_(memory_limit), disk_limit_(disk_limit) {
  // Created on demand; a folder that cannot be made shows up as put()'s error, with its reason.
  if (!dir_.empty()) {
    std::error_code ignored;
    std::filesystem::create_directories(dir_, ignored);
    for (auto it = std::filesystem::directory_iterator(dir_, ignored);
         !ignored && it != std::filesystem::directory_iterator(); it.increment(ignored)) {
      std::error_code size_error;
      const auto size = it->file_size(size_error);
      if (!size_error && it->is_regular_file(size_error)) disk_bytes_ += size;
    }
  }
}

bool MediaStore::valid_hash(std::string_view hash) {
  if (hash.size() != 64) return false;
  for (char c : hash)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

Result<MediaInfo> MediaStore::put(const exec::Payload& payload, bool voice) {
  MediaInfo info;
  info.name = payload.name();
  if (info.name.empty()) info.name = "file";
  info.mime = media_type(payload, info.name, voice);
  info.inline_disposition = voice;
  return dir_.empty() ? put_memory(payload, std::move(info)) : put_file(payload, std::move(info));
}

Result<MediaInfo> MediaStore::put_file(const exec::Payload& payload, MediaInfo info) {
  const std::string temp = dir_ + "/.incoming-" + temp_suffix();
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Failure{std::string("media: cannot create " + temp + ": " + errno_text())};
  store::Sha256 hash;
  std::vector<char> buf(kChunk);
  std::uint64_t offset = 0;
  for (;;) {
    const std::int64_t n = payload.read_at(offset, buf);
    if (n < 0) {
      ::close(fd);
      ::unlink(temp.c_str());
      return Failure{std::string("media: cannot read " + info.name)};
    }
    if (n == 0) break;
    const auto got = static_cast<std::size_t>(n);
    hash.update(std::string_view(buf.data(), got));
    if (!write_all(fd, buf.data(), got)) {
      const std::string why = errno_text();
      ::close(fd);
      ::unlink(temp.c_str());
      return Failure{std::string("media: cannot write " + temp + ": " + why)};
    }
    offset += got;
  }
  ::close(fd);
  info.sha256 = store::to_hex(hash.finish());
  info.size = offset;
  {
    std::lock_guard lock(mu_);
    const bool known = ::access((dir_ + "/" + info.sha256).c_str(), F_OK) == 0;
    if (!known && disk_limit_ != 0 && disk_bytes_ + offset > disk_limit_) {
      ::unlink(temp.c_str());
      return Failure{std::string("media: the media folder is full (" + std::to_string(disk_bytes_ >> 20) +
                                 " MiB of " + std::to_string(disk_limit_ >> 20) + " MiB); " + info.name +
                                 " was not kept")};
    }
    if (!known) disk_bytes_ += offset;
  }

  // The metadata first: a file without it is still served (type from the URL's name, as an attachment).
  // `<hash>.<name key>.meta` per link; `<hash>.meta` says what find() without a name answers (the first).
  const std::string named_meta = dir_ + "/" + info.sha256 + "." + name_key(info.name) + ".meta";
  auto wrote = write_meta_once(named_meta, info);
  if (wrote.ok() && !*wrote) {
    // This link exists already: it keeps what it was (a later delivery never retypes it).
    if (auto existing = read_meta(named_meta, info.sha256); existing && existing->name == info.name) {
      existing->size = info.size;
      info = std::move(*existing);
    }
  }
  if (wrote.ok()) wrote = write_meta_once(dir_ + "/" + info.sha256 + ".meta", info);
  if (!wrote.ok()) {
    ::unlink(temp.c_str());
    return Failure{std::string(wrote.error())};
  }
  const std::string final_path = dir_ + "/" + info.sha256;
  if (std::rename(temp.c_str(), final_path.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(temp.c_str());
    return Failure{std::string("media: cannot rename to " + final_path + ": " + why)};
  }
  return info;
}

Result<MediaInfo> MediaStore::put_memory(const exec::Payload& payload, MediaInfo info) {
  auto bytes = std::make_shared<std::string>();
  store::Sha256 hash;
  std::array<char, 16 * 1024> buf;
  for (;;) {
    const std::int64_t n = payload.read_at(bytes->size(), buf);
    if (n < 0) return Failure{std::string("media: cannot read " + info.name)};
    if (n == 0) break;
    const auto got = static_cast<std::size_t>(n);
    if (bytes->size() + got > memory_limit_) {
      return Failure{std::string("media: " + info.name + " is larger than the in-memory media cache (" +
                                 std::to_string(memory_limit_ >> 20) + " MiB); set a media directory")};
    }
    hash.update(std::string_view(buf.data(), got));
    bytes->append(buf.data(), got);
  }
  info.sha256 = store::to_hex(hash.finish());
  info.size = bytes->size();
  std::lock_guard lock(mu_);
  // Each (bytes, name) link keeps what it was first delivered as.
  const std::string link = info.sha256 + "/" + info.name;
  if (auto named = names_.find(link); named != names_.end()) {
    info = named->second;
  } else {
    names_.emplace(link, info);
  }
  auto it = memory_.find(info.sha256);
  if (it != memory_.end()) return info;
  memory_bytes_ += bytes->size();
  memory_.emplace(info.sha256, Entry{info, std::move(bytes)});
  order_.push_back(info.sha256);
  while (memory_bytes_ > memory_limit_ && !order_.empty()) {
    auto old = memory_.find(order_.front());
    memory_bytes_ -= old->second.bytes->size();
    const std::string prefix = order_.front() + "/";
    for (auto n = names_.lower_bound(prefix); n != names_.end() && n->first.starts_with(prefix);)
      n = names_.erase(n);
    memory_.erase(old);
    order_.pop_front();
  }
  return info;
}

std::optional<MediaFound> MediaStore::find(std::string_view hash, std::string_view name) const {
  if (!valid_hash(hash)) return std::nullopt;
  if (dir_.empty()) {
    std::lock_guard lock(mu_);
    auto it = memory_.find(hash);
    if (it == memory_.end()) return std::nullopt;
    MediaFound found{it->second.info, {}, it->second.bytes};
    if (!name.empty()) {
      auto named = names_.find(std::string(hash) + "/" + std::string(name));
      found.info = named != names_.end() ? named->second : unknown_link(hash, name, found.info.size);
    }
    return found;
  }
  MediaFound found;
  found.file = dir_ + "/" + std::string(hash);
  if (::access(found.file.c_str(), R_OK) != 0) return std::nullopt;
  found.info.sha256 = std::string(hash);
  if (!name.empty()) {
    auto named = read_meta(found.file + "." + name_key(name) + ".meta", hash);
    if (!named || named->name != name) named = read_meta(found.file + ".meta", hash);
    found.info = named && named->name == name ? std::move(*named) : unknown_link(hash, name, 0);
    return found;
  }
  if (auto first = read_meta(found.file + ".meta", hash)) found.info = std::move(*first);
  return found;
}

// A name no delivery of these bytes had: served under it, typed by it, as an attachment.
MediaInfo MediaStore::unknown_link(std::string_view hash, std::string_view name, std::uint64_t size) {
  MediaInfo info;
  info.sha256 = std::string(hash);
  info.name = std::string(name);
  info.mime = mime_for_name(info.name);
  info.size = size;
  return info;
}

}  // namespace sigil::server
