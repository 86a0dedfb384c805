// The SHA-256 compression function over whole 64-byte blocks, twice: the portable one and one on the x86
// SHA extensions (SHA-NI: a block in about a tenth of the instructions), chosen at run time by
// sha256_blocks(). Both are exposed so the tests can hold the fast one to the portable one. Private to
// src/store/ (and its tests).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace sigil::store::detail {

using Sha256State = std::array<std::uint32_t, 8>;

void sha256_blocks_portable(Sha256State& h, const std::uint8_t* p, std::size_t blocks) noexcept;
// True when this CPU has the SHA extensions (and SSSE3 and SSE4.1, which the kernel also uses).
bool sha256_ni_available() noexcept;
// Requires sha256_ni_available().
void sha256_blocks_ni(Sha256State& h, const std::uint8_t* p, std::size_t blocks) noexcept;
// The fastest of the two this CPU runs.
void sha256_blocks(Sha256State& h, const std::uint8_t* p, std::size_t blocks) noexcept;

}  // namespace sigil::store::detail
