#include "sigil/text/random_id.h"

#include <unistd.h>

#include <array>
#include <cstdint>
#include <random>
#include <stdexcept>

namespace sigil::text {
namespace {

// 256 bits from the system spread over the engine's whole state (seeding with one number would leave
// 2^64 possible sequences). Seeded again in a forked child: it inherits the parent's engine, and would
// otherwise make the very ids the parent makes next (a store opened in both would share its session).
std::mt19937_64& engine() {
  struct Seeded {
    pid_t pid = -1;
    std::mt19937_64 rng;
  };
  thread_local Seeded seeded;
  if (const pid_t pid = ::getpid(); pid != seeded.pid) {
    std::random_device device;
    std::array<std::uint32_t, 8> words{};
    for (std::uint32_t& w : words) w = device();
    std::seed_seq seeds(words.begin(), words.end());
    seeded.rng.seed(seeds);
    seeded.pid = pid;
  }
  return seeded.rng;
}

}  // namespace

std::string random_id(std::string_view prefix, std::size_t hex_digits) {
  static constexpr std::string_view kHex = "0123456789abcdef";
  std::mt19937_64& rng = engine();
  std::string out(prefix);
  out.reserve(prefix.size() + hex_digits);
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < hex_digits; ++i) {
    if (i % 16 == 0) bits = rng();
    out += kHex[bits >> 60];
    bits <<= 4;
  }
  return out;
}

std::string random_id(std::string_view prefix, std::size_t length, std::string_view alphabet) {
  if (alphabet.empty()) throw std::invalid_argument("random_id: empty alphabet");
  std::mt19937_64& rng = engine();
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::string out(prefix);
  out.reserve(prefix.size() + length);
  for (std::size_t i = 0; i < length; ++i) out += alphabet[pick(rng)];
  return out;
}

}  // namespace sigil::text
