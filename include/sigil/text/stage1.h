// Stage 1 of the staged parser: one pass over a buffer in 64-byte blocks that both validates UTF-8 and
// produces bitmaps of the bytes every later stage looks for (simdjson's design, our own code).
//
// Promises:
// - Every kernel gives bit-for-bit the same output for the same bytes: the masks, the block of the first
//   UTF-8 error and the open tail (tests/text/stage1_test.cpp and fuzz/stage1.cpp compare them). Only speed
//   differs. best_kernel() picks the widest one this CPU runs; SIGIL_STAGE1=scalar|sse2|avx2|avx512 in the
//   environment picks another (read once; an unsupported choice falls back to the best), so that tests can
//   run every kernel through the whole parser on one machine.
// - Masks: bit j of block k stands for byte 64k + j; bits past the end of the buffer are 0.
// - UTF-8 (Unicode Table 3-7, no overlongs, no surrogates, nothing above U+10FFFF) is checked with the
//   branch-free lookup algorithm of Keiser & Lemire: each byte is judged from the three bytes before it, so a
//   block's verdict may need the end of the block before it, never the block after. first_error_block is the
//   first block holding a byte at which an error shows; no ill-formed unit starts before
//   64 * first_error_block - 3, so a precise (scalar) scan may restart there (restart_point()).
// - tail_open: the buffer ends inside what may be a sequence (its last byte >= C0, or the one before it
//   >= E0, or the one before that >= F0), which the next bytes may complete or not. A buffer is valid UTF-8
//   exactly when first_error_block == blocks_for(size) and !tail_open.
// - Nothing allocates; the callers own the mask storage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sigil::text::stage1 {

inline constexpr std::size_t kBlock = 64;

constexpr std::size_t blocks_for(std::size_t bytes) noexcept { return (bytes + kBlock - 1) / kBlock; }

// The structural bytes of one 64-byte block, one bit per byte. Only what a stage reads is marked: a mask of
// quotes and one of bytes >= 0x80 were written and never read (a quoted value in markup is a few bytes that
// OpenTagScan::scan_whole() reads to its quote, stopping at backslashes, `&` and line breaks too, which no
// mask marks; the UTF-8 check finds its own non-ASCII bytes), at about 360 instructions a typical reply.
struct BlockMasks {
  std::uint64_t lt = 0;        // `<`: tags, comments, close tags
  std::uint64_t bracket = 0;   // `[`: bracket directives
  std::uint64_t newline = 0;   // `\n`: line starts for the code tracker, the sentinel judge, the tidier
  std::uint64_t backtick = 0;  // `` ` ``: inline code and fences
  friend bool operator==(const BlockMasks&, const BlockMasks&) = default;
};

// Named selectors of BlockMasks bits, for MaskView::find/rfind: the one place that says which bitmap (or
// which union of bitmaps) a stage looks for, so no stage spells its own.
inline constexpr auto kNewlines = [](const BlockMasks& m) noexcept { return m.newline; };
inline constexpr auto kLessThans = [](const BlockMasks& m) noexcept { return m.lt; };
// `<` and `[`: where markup may start in ordinary text.
inline constexpr auto kMarkupStarts = [](const BlockMasks& m) noexcept { return m.lt | m.bracket; };
// `<`, `[` and `\n`: where a text body's run stops.
inline constexpr auto kMarkupStartsOrNewlines = [](const BlockMasks& m) noexcept {
  return m.lt | m.bracket | m.newline;
};
// Backticks alone.
inline constexpr auto kBackticks = [](const BlockMasks& m) noexcept { return m.backtick; };
// Backticks and `\n`: where the code tracker's state may change outside a fence.
inline constexpr auto kBackticksOrNewlines = [](const BlockMasks& m) noexcept {
  return m.backtick | m.newline;
};
// No byte: for a search that needs no second set.
inline constexpr auto kNothing = [](const BlockMasks&) noexcept { return std::uint64_t{0}; };

struct Utf8Check {
  std::size_t first_error_block = 0;  // blocks_for(size) when no error shows
  bool tail_open = false;
  friend bool operator==(const Utf8Check&, const Utf8Check&) = default;
};

enum class Kernel : std::uint8_t { Scalar, Sse2, Avx2, Avx512 };
inline constexpr Kernel kAllKernels[] = {Kernel::Scalar, Kernel::Sse2, Kernel::Avx2, Kernel::Avx512};

std::string_view kernel_name(Kernel k) noexcept;
// This CPU (and this build) can run the kernel. Scalar always.
bool kernel_supported(Kernel k) noexcept;
namespace detail {
Kernel choose_kernel() noexcept;  // what best_kernel() returns: the CPU's best, or SIGIL_STAGE1's choice
}  // namespace detail
// The kernel stage 1 uses unless told otherwise (see above); decided once per process. Inline, so that a
// caller per reply (a fresh parser) pays a guard test, not a call.
inline Kernel best_kernel() noexcept {
  static const Kernel chosen = detail::choose_kernel();
  return chosen;
}

// The fused pass: masks for every block of s (out has room for blocks_for(s.size())) and the UTF-8 check.
Utf8Check scan(Kernel k, std::string_view s, BlockMasks* out) noexcept;
// The structural index alone, and the UTF-8 check alone: the two halves of the fused pass, for benchmarks
// (the stage-1 limit) and for callers that need only one of them.
void index(Kernel k, std::string_view s, BlockMasks* out) noexcept;
Utf8Check validate(Kernel k, std::string_view s) noexcept;

inline Utf8Check scan(std::string_view s, BlockMasks* out) noexcept { return scan(best_kernel(), s, out); }
inline Utf8Check validate(std::string_view s) noexcept { return validate(best_kernel(), s); }

// True when the check says s is valid UTF-8 as a whole.
inline bool all_valid(const Utf8Check& c, std::size_t size) noexcept {
  return c.first_error_block == blocks_for(size) && !c.tail_open;
}

// A piece of a scanned buffer with its masks: positions are relative to the piece, which starts `offset`
// bytes into the buffer the masks describe. Default-constructed: no masks (callers then scan the bytes).
class MaskView {
 public:
  static constexpr std::size_t npos = std::string_view::npos;

  MaskView() noexcept = default;
  MaskView(const BlockMasks* masks, std::size_t offset, std::size_t size) noexcept
      : masks_(masks), offset_(offset), size_(size) {}
  explicit operator bool() const noexcept { return masks_ != nullptr; }
  std::size_t size() const noexcept { return size_; }
  // The view of [from, from + len) of this piece.
  MaskView sub(std::size_t from, std::size_t len) const noexcept {
    return masks_ ? MaskView(masks_, offset_ + from, len) : MaskView();
  }
  // How many bytes of the scanned buffer lie before the piece (the masks describe them too).
  std::size_t lead() const noexcept { return offset_; }
  // The view of the k bytes of the buffer right before the piece and the piece (k <= lead()): for a caller
  // that puts k bytes of its own in front of the piece and has checked that they and the buffer's k bytes
  // have the same masks (blanks, which no mask marks).
  MaskView widen_front(std::size_t k) const noexcept { return MaskView(masks_, offset_ - k, size_ + k); }

  // The first position >= from whose bit is set in select(block masks), or size() when none is.
  template <class Select>
  std::size_t find(Select select, std::size_t from) const noexcept {
    if (from >= size_) return size_;
    const std::size_t start = offset_ + from, end = offset_ + size_;
    std::size_t k = start / kBlock;
    std::uint64_t bits = select(masks_[k]) & (~std::uint64_t{0} << (start % kBlock));
    if (bits == 0) {
      // The blocks after the first, up to the view's last: a compare and a load each (the last block's index
      // is worked out here, not on the way of a search that ends in its first block, as a streamed piece's).
      const std::size_t last = (end - 1) / kBlock;
      do {
        if (k == last) return size_;
        bits = select(masks_[++k]);
      } while (bits == 0);
    }
    const std::size_t at = k * kBlock + static_cast<std::size_t>(__builtin_ctzll(bits));
    return at < end ? at - offset_ : size_;
  }
  // Whether no position of the view has its bit set in select(block masks): find(select, 0) == size(),
  // without finding where (a streamed piece lies in one or two blocks: a test or two, no search loop).
  template <class Select>
  bool none(Select select) const noexcept {
    const std::size_t start = offset_ % kBlock;
    std::size_t k = offset_ / kBlock;
    if (start + size_ <= kBlock)  // within one block: its bits from start, the size_ lowest of them
      return size_ == 0 || ((select(masks_[k]) >> start) << (kBlock - size_)) == 0;
    const std::size_t last = (offset_ + size_ - 1) / kBlock;
    if ((select(masks_[k]) & (~std::uint64_t{0} << start)) != 0) return false;
    // The whole blocks between, two at a time (one test for both: a long window of prose holds no `<`).
    for (++k; k + 2 <= last; k += 2)
      if ((select(masks_[k]) | select(masks_[k + 1])) != 0) return false;
    if (k != last && select(masks_[k]) != 0) return false;
    return (select(masks_[last]) & (~std::uint64_t{0} >> (kBlock - 1 - (offset_ + size_ - 1) % kBlock))) == 0;
  }
  // Where a run of run-selected bytes ends or a stop-selected byte stands, whichever comes first: the first
  // position p > from whose run bit is clear while the run bit of p - 1 is set (with kNewlines: the first
  // byte of a line after its line breaks), or p >= from whose stop bit is set; size() when there is neither.
  // A run that ends at `from` does not count: its start lies before the piece, or before the caller's place.
  template <class Run, class Stop>
  std::size_t find_run_end(Run run, Stop stop, std::size_t from) const noexcept {
    if (from >= size_) return size_;
    const std::size_t start = offset_ + from, end = offset_ + size_;
    std::size_t k = start / kBlock;
    const std::uint64_t at_or_after = ~std::uint64_t{0} << (start % kBlock);
    std::uint64_t cur = run(masks_[k]);
    // No carry into block k: its first position is at or before `from`, where no run end counts.
    std::uint64_t bits = (~cur & (cur << 1) & (at_or_after << 1)) | (stop(masks_[k]) & at_or_after);
    const std::size_t last = (end - 1) / kBlock;
    for (;;) {
      if (bits != 0) {
        const std::size_t at = k * kBlock + static_cast<std::size_t>(__builtin_ctzll(bits));
        return at < end ? at - offset_ : size_;
      }
      if (k == last) return size_;
      if (cur >> 63 == 0) {
        // No run goes on into the next block: pass the blocks that hold neither a run byte nor a stop.
        do {
          if (++k > last) return size_;
        } while ((run(masks_[k]) | stop(masks_[k])) == 0);
        cur = run(masks_[k]);
        bits = (~cur & (cur << 1)) | stop(masks_[k]);
      } else {
        ++k;
        cur = run(masks_[k]);
        bits = (~cur & ((cur << 1) | 1)) | stop(masks_[k]);
      }
    }
  }
  // The last position < to whose bit is set, or npos when none is.
  template <class Select>
  std::size_t rfind(Select select, std::size_t to) const noexcept {
    if (to > size_) to = size_;
    if (to == 0) return npos;
    const std::size_t start = offset_, end = offset_ + to;  // search [start, end)
    std::size_t k = (end - 1) / kBlock;
    const std::size_t top = (end - 1) % kBlock;
    std::uint64_t bits = select(masks_[k]) & (top == 63 ? ~std::uint64_t{0} : (std::uint64_t{2} << top) - 1);
    if (bits == 0) {  // back through the blocks before, down to the view's first (as find())
      const std::size_t first = start / kBlock;
      do {
        if (k == first) return npos;
        bits = select(masks_[--k]);
      } while (bits == 0);
    }
    const std::size_t at = k * kBlock + 63 - static_cast<std::size_t>(__builtin_clzll(bits));
    return at >= start ? at - offset_ : npos;
  }

 private:
  template <class Select>
  friend class MaskWalk;

  const BlockMasks* masks_ = nullptr;
  std::size_t offset_ = 0;
  std::size_t size_ = 0;
};

// The selected positions of a view, walked in order for a caller that stops at many of them (the code
// tracker at each line break and backtick): next() answers what find(select, place) would, but the word and
// bit position stay between calls, so a stop in the same block costs a bit scan, not find()'s set-up from
// the view's start. The place only moves forward (seek()). The view must have masks.
template <class Select>
class MaskWalk {
 public:
  MaskWalk(const MaskView& view, Select select, std::size_t from) noexcept
      : masks_(view.masks_), offset_(view.offset_), size_(view.size_), select_(select) {
    last_ = size_ == 0 ? 0 : (offset_ + size_ - 1) / kBlock;
    k_ = (offset_ + from) / kBlock;
    bits_ = from >= size_ ? 0 : select_(masks_[k_]) & (~std::uint64_t{0} << ((offset_ + from) % kBlock));
    if (from >= size_) k_ = last_;
  }
  // The first selected position at or after the place, or the view's size when none is. Does not move.
  std::size_t next() noexcept {
    while (bits_ == 0) {
      if (k_ + 2 <= last_) {  // two words at a time while both lie in the view (prose: most select nothing)
        const std::uint64_t a = select_(masks_[k_ + 1]), b = select_(masks_[k_ + 2]);
        k_ += a != 0 ? 1 : 2;
        bits_ = a != 0 ? a : b;
        continue;
      }
      if (k_ >= last_) return size_;
      bits_ = select_(masks_[++k_]);
    }
    const std::size_t at = k_ * kBlock + static_cast<std::size_t>(__builtin_ctzll(bits_)) - offset_;
    return at < size_ ? at : size_;
  }
  // Moves the place to `to` (not before the place, at most the view's size): positions before it are not
  // selected again.
  void seek(std::size_t to) noexcept {
    const std::size_t abs = offset_ + to;
    const std::size_t k = abs / kBlock;
    if (k != k_) {
      if (to >= size_) {
        k_ = last_;
        bits_ = 0;
        return;
      }
      k_ = k;
      bits_ = select_(masks_[k]);
    }
    bits_ &= ~std::uint64_t{0} << (abs % kBlock);
  }

 private:
  const BlockMasks* masks_;
  std::size_t offset_;
  std::size_t size_;
  std::size_t k_ = 0;
  std::size_t last_ = 0;
  std::uint64_t bits_ = 0;
  [[no_unique_address]] Select select_;
};

// Where a precise scan of s may start to find the first ill-formed unit the check reported: a unit boundary
// with only well-formed bytes before it. Requires !all_valid(c, s.size()).
std::size_t restart_point(std::string_view s, const Utf8Check& c) noexcept;

}  // namespace sigil::text::stage1
