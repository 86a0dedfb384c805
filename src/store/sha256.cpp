#include "sigil/store/sha256.h"

#include <algorithm>
#include <cstring>

#include "store/sha256_blocks.h"

namespace sigil::store {

Sha256::Sha256() noexcept
    : h_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19} {}

void Sha256::block(const std::uint8_t* p) noexcept { detail::sha256_blocks(h_, p, 1); }

void Sha256::update(std::string_view bytes) noexcept {
  const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data());
  std::size_t n = bytes.size();
  total_ += n;
  if (buffered_ > 0) {
    const std::size_t take = std::min(n, buf_.size() - buffered_);
    std::memcpy(buf_.data() + buffered_, p, take);
    buffered_ += take;
    p += take;
    n -= take;
    if (buffered_ < buf_.size()) return;
    block(buf_.data());
    buffered_ = 0;
  }
  if (n >= 64) {
    detail::sha256_blocks(h_, p, n / 64);
    p += n / 64 * 64;
    n %= 64;
  }
  if (n > 0) std::memcpy(buf_.data(), p, n);
  buffered_ = n;
}

Sha256::Digest Sha256::finish() noexcept {
  const std::uint64_t bits = total_ * 8;
  buf_[buffered_++] = 0x80;
  if (buffered_ > 56) {
    std::memset(buf_.data() + buffered_, 0, 64 - buffered_);
    block(buf_.data());
    buffered_ = 0;
  }
  std::memset(buf_.data() + buffered_, 0, 56 - buffered_);
  for (std::size_t i = 0; i < 8; ++i) buf_[56 + i] = static_cast<std::uint8_t>(bits >> (56 - 8 * i));
  block(buf_.data());
  buffered_ = 0;
  Digest out;
  for (std::size_t i = 0; i < 8; ++i) {
    out[4 * i] = static_cast<std::uint8_t>(h_[i] >> 24);
    out[4 * i + 1] = static_cast<std::uint8_t>(h_[i] >> 16);
    out[4 * i + 2] = static_cast<std::uint8_t>(h_[i] >> 8);
    out[4 * i + 3] = static_cast<std::uint8_t>(h_[i]);
  }
  return out;
}

Sha256::Digest sha256(std::string_view bytes) noexcept {
  Sha256 h;
  h.update(bytes);
  return h.finish();
}

std::string to_hex(const Sha256::Digest& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(digest.size() * 2, '0');
  for (std::size_t i = 0; i < digest.size(); ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 0xF];
  }
  return out;
}

std::string sha256_hex(std::string_view bytes) { return to_hex(sha256(bytes)); }

}  // namespace sigil::store
