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
#include <random>
#include <sstream>
#include <utility>
#include <vector>

#include "server/mime_types.h"
#include "sigil/store/sha256.h"

namespace sigil::server {
namespace {

constexpr std::size_t kChunk = 64 * 1024;

std::string errno_text() { return std::strerror(errno); }

// A voice note is played inline, so its type must be audio whatever the payload claims.
std::string media_type(const exec::Payload& payload, const std::string& name, bool voice) {
  std::string mime = payload.mime_type();
  if (mime.empty()) mime = std::string(mime_for_name(name));
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

std::string temp_suffix() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(rng()));
  return buf;
}

}  // namespace

MediaStore::MediaStore(std::string dir, std::size_t memory_limit)
    : dir_(std::move(dir)), memory_limit_(memory_limit) {
  // Created on demand; a folder that cannot be made shows up as put()'s error, with its reason.
  if (!dir_.empty()) {
    std::error_code ignored;
    std::filesystem::create_directories(dir_, ignored);
  }
}

bool MediaStore::valid_hash(std::string_view hash) {
  if (hash.size() != 64) return false;
  for (char c : hash)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

store::Result<MediaInfo> MediaStore::put(const exec::Payload& payload, bool voice) {
  MediaInfo info;
  info.name = payload.name();
  if (info.name.empty()) info.name = "file";
  info.mime = media_type(payload, info.name, voice);
  info.inline_disposition = voice;
  return dir_.empty() ? put_memory(payload, std::move(info)) : put_file(payload, std::move(info));
}

store::Result<MediaInfo> MediaStore::put_file(const exec::Payload& payload, MediaInfo info) {
  const std::string temp = dir_ + "/.incoming-" + temp_suffix();
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return store::Error{"media: cannot create " + temp + ": " + errno_text()};
  store::Sha256 hash;
  std::vector<char> buf(kChunk);
  std::uint64_t offset = 0;
  for (;;) {
    const std::int64_t n = payload.read_at(offset, buf);
    if (n < 0) {
      ::close(fd);
      ::unlink(temp.c_str());
      return store::Error{"media: cannot read " + info.name};
    }
    if (n == 0) break;
    const auto got = static_cast<std::size_t>(n);
    hash.update(std::string_view(buf.data(), got));
    if (!write_all(fd, buf.data(), got)) {
      const std::string why = errno_text();
      ::close(fd);
      ::unlink(temp.c_str());
      return store::Error{"media: cannot write " + temp + ": " + why};
    }
    offset += got;
  }
  ::close(fd);
  info.sha256 = store::to_hex(hash.finish());
  info.size = offset;

  // The metadata first: a file without it is still served (type from the URL's name, as an attachment).
  const std::string meta_path = dir_ + "/" + info.sha256 + ".meta";
  const std::string meta_temp = meta_path + "." + temp_suffix();
  {
    std::ofstream meta(meta_temp, std::ios::binary | std::ios::trunc);
    meta << boost::json::serialize(
        boost::json::object{{"name", info.name}, {"mime", info.mime}, {"inline", info.inline_disposition}});
    meta.close();
    if (!meta || std::rename(meta_temp.c_str(), meta_path.c_str()) != 0) {
      ::unlink(meta_temp.c_str());
      ::unlink(temp.c_str());
      return store::Error{"media: cannot write " + meta_path};
    }
  }
  const std::string final_path = dir_ + "/" + info.sha256;
  if (std::rename(temp.c_str(), final_path.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(temp.c_str());
    return store::Error{"media: cannot rename to " + final_path + ": " + why};
  }
  return info;
}

store::Result<MediaInfo> MediaStore::put_memory(const exec::Payload& payload, MediaInfo info) {
  auto bytes = std::make_shared<std::string>();
  store::Sha256 hash;
  std::array<char, 16 * 1024> buf;
  for (;;) {
    const std::int64_t n = payload.read_at(bytes->size(), buf);
    if (n < 0) return store::Error{"media: cannot read " + info.name};
    if (n == 0) break;
    const auto got = static_cast<std::size_t>(n);
    if (bytes->size() + got > memory_limit_) {
      return store::Error{"media: " + info.name + " is larger than the in-memory media cache (" +
                          std::to_string(memory_limit_ >> 20) + " MiB); set a media directory"};
    }
    hash.update(std::string_view(buf.data(), got));
    bytes->append(buf.data(), got);
  }
  info.sha256 = store::to_hex(hash.finish());
  info.size = bytes->size();
  std::lock_guard lock(mu_);
  auto it = memory_.find(info.sha256);
  if (it != memory_.end()) {
    it->second.info = info;  // same bytes; the latest name and disposition win
    return info;
  }
  memory_bytes_ += bytes->size();
  memory_.emplace(info.sha256, Entry{info, std::move(bytes)});
  order_.push_back(info.sha256);
  while (memory_bytes_ > memory_limit_ && !order_.empty()) {
    auto old = memory_.find(order_.front());
    memory_bytes_ -= old->second.bytes->size();
    memory_.erase(old);
    order_.pop_front();
  }
  return info;
}

std::optional<MediaFound> MediaStore::find(std::string_view hash) const {
  if (!valid_hash(hash)) return std::nullopt;
  if (dir_.empty()) {
    std::lock_guard lock(mu_);
    auto it = memory_.find(hash);
    if (it == memory_.end()) return std::nullopt;
    return MediaFound{it->second.info, {}, it->second.bytes};
  }
  MediaFound found;
  found.file = dir_ + "/" + std::string(hash);
  if (::access(found.file.c_str(), R_OK) != 0) return std::nullopt;
  found.info.sha256 = std::string(hash);
  std::ifstream meta(found.file + ".meta", std::ios::binary);
  std::stringstream text;
  text << meta.rdbuf();
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(text.str(), ec);
  if (!ec && v.is_object()) {
    const auto& o = v.as_object();
    if (auto* n = o.if_contains("name"); n && n->is_string()) found.info.name = std::string(n->as_string());
    if (auto* m = o.if_contains("mime"); m && m->is_string()) found.info.mime = std::string(m->as_string());
    if (auto* i = o.if_contains("inline"); i && i->is_bool()) found.info.inline_disposition = i->as_bool();
  }
  return found;
}

}  // namespace sigil::server
