// SHA-256 (FIPS 180-4), small and dependency-free: the store uses it for exactly-once keys and page slugs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sigil::store {

class Sha256 {
 public:
  using Digest = std::array<std::uint8_t, 32>;

  Sha256() noexcept;
  void update(std::string_view bytes) noexcept;
  // Ends the message; the object must not be updated afterwards (construct a new one).
  Digest finish() noexcept;

 private:
  void block(const std::uint8_t* p) noexcept;

  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> buf_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_ = 0;  // bytes
};

Sha256::Digest sha256(std::string_view bytes) noexcept;
// Lowercase hex of the digest (64 characters).
std::string sha256_hex(std::string_view bytes);
std::string to_hex(const Sha256::Digest& digest);

}  // namespace sigil::store
