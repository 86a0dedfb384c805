// Stage 1: the scalar kernel (the reference every other kernel is tested against) and the dispatch.
#include "sigil/text/stage1.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "sigil/text/enum_names.h"
#include "stage1_kernels.h"

namespace sigil::text::stage1 {
namespace detail {

bool utf8_block_scalar(const unsigned char* block, std::size_t len, const unsigned char prev[3]) noexcept {
  std::uint8_t p3 = prev[0], p2 = prev[1], p1 = prev[2], err = 0;
  for (std::size_t i = 0; i < len; ++i) {
    const std::uint8_t cur = block[i];
    err = static_cast<std::uint8_t>(err | judge(p3, p2, p1, cur));
    p3 = p2;
    p2 = p1;
    p1 = cur;
  }
  return err != 0;
}

BlockMasks masks_scalar(const unsigned char* block, std::size_t len) noexcept {
  BlockMasks m;
  for (std::size_t i = 0; i < len; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << i;
    switch (block[i]) {
      case '<':
        m.lt |= bit;
        break;
      case '[':
        m.bracket |= bit;
        break;
      case '\n':
        m.newline |= bit;
        break;
      case '`':
        m.backtick |= bit;
        break;
      default:
        break;
    }
  }
  return m;
}

Utf8Check scan_scalar(const unsigned char* p, std::size_t n, BlockMasks* out, unsigned want) noexcept {
  const std::size_t blocks = blocks_for(n);
  Utf8Check r{blocks, false};
  unsigned char prev[3] = {0, 0, 0};
  for (std::size_t k = 0; k < blocks; ++k) {
    if (want == kWantUtf8 && r.first_error_block != blocks) break;  // the check alone stops at its verdict
    const unsigned char* b = p + k * kBlock;
    const std::size_t len = std::min(kBlock, n - k * kBlock);
    if (want & kWantMasks) out[k] = masks_scalar(b, len);
    if ((want & kWantUtf8) && r.first_error_block == blocks && utf8_block_scalar(b, len, prev))
      r.first_error_block = k;
    if (len >= 3) std::memcpy(prev, b + len - 3, 3);  // a short block is the last one
  }
  if (want & kWantUtf8) r.tail_open = buffer_tail_open(p, n);
  return r;
}

}  // namespace detail

namespace {

detail::KernelFn kernel_fn(Kernel k) noexcept {
#if defined(SIGIL_STAGE1_X86)
  if (kernel_supported(k)) {
    switch (k) {
      case Kernel::Avx512:
        return detail::scan_avx512;
      case Kernel::Avx2:
        return detail::scan_avx2;
      case Kernel::Sse2:
        return detail::scan_sse2;
      case Kernel::Scalar:
        break;
    }
  }
#else
  (void)k;
#endif
  return detail::scan_scalar;
}

}  // namespace

Kernel detail::choose_kernel() noexcept {
  Kernel best = Kernel::Scalar;
  for (Kernel k : kAllKernels)
    if (kernel_supported(k)) best = k;
  if (const char* env = std::getenv("SIGIL_STAGE1")) {
    for (Kernel k : kAllKernels)
      if (kernel_name(k) == env && kernel_supported(k)) return k;
  }
  return best;
}

namespace {
constexpr EnumNames<Kernel::Avx512> kKernelNames{{"scalar", "sse2", "avx2", "avx512"}, "scalar"};
}  // namespace

std::string_view kernel_name(Kernel k) noexcept { return kKernelNames.name(k); }

bool kernel_supported(Kernel k) noexcept {
  switch (k) {
    case Kernel::Scalar:
      return true;
#if defined(SIGIL_STAGE1_X86)
    case Kernel::Sse2:
      return true;  // part of x86-64
    case Kernel::Avx2:
      return __builtin_cpu_supports("avx2");
    case Kernel::Avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#else
    default:
      return false;
#endif
  }
  return false;
}

Utf8Check scan(Kernel k, std::string_view s, BlockMasks* out) noexcept {
#if defined(SIGIL_STAGE1_X86)
  // A streamed piece of up to one block: paths cheaper than a kernel's set-up for many blocks (the scalar
  // kernel, the reference the tests compare with, keeps its own path).
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const unsigned want = detail::kWantMasks | detail::kWantUtf8;
  if (s.size() <= detail::kSmallScan) {
    if (k != Kernel::Scalar && kernel_supported(k))
      return k == Kernel::Sse2 ? detail::scan_small(p, s.size(), out, want)
                               : detail::scan_small_avx2(p, s.size(), out, want);
  } else if (s.size() <= kBlock && k == Kernel::Avx2 && kernel_supported(k)) {
    // One block of 33-64 bytes: AVX2 without its many-block set-up (AVX-512 loads it masked, cheaply).
    return detail::scan_block_avx2(p, s.size(), out, want);
  }
  return kernel_fn(k)(p, s.size(), out, want);
#else
  return kernel_fn(k)(reinterpret_cast<const unsigned char*>(s.data()), s.size(), out,
                      detail::kWantMasks | detail::kWantUtf8);
#endif
}

void index(Kernel k, std::string_view s, BlockMasks* out) noexcept {
  kernel_fn(k)(reinterpret_cast<const unsigned char*>(s.data()), s.size(), out, detail::kWantMasks);
}

Utf8Check validate(Kernel k, std::string_view s) noexcept {
  return kernel_fn(k)(reinterpret_cast<const unsigned char*>(s.data()), s.size(), nullptr, detail::kWantUtf8);
}

std::size_t restart_point(std::string_view s, const Utf8Check& c) noexcept {
  // Nothing ill-formed starts before 64 * block - 3 (or before size - 3 for an open tail), so the byte
  // before that is inside the well-formed prefix; back up from it to the start of its unit.
  const std::size_t bound = std::min(c.first_error_block * kBlock, s.size());
  std::size_t q = bound >= 4 ? bound - 4 : 0;
  for (int back = 0; back < 3 && q > 0 && (static_cast<unsigned char>(s[q]) & 0xC0) == 0x80; ++back) --q;
  return q;
}

}  // namespace sigil::text::stage1
