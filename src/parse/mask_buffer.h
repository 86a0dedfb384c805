// Storage for stage 1's masks of the parser's current window.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <utility>

#include "sigil/text/stage1.h"

namespace sigil::parse {

// The masks of one window: a window of up to kInlineBlocks blocks (a typical whole reply, or any streamed
// piece) uses storage the parser holds (InlineMasks), so a fresh parser's first feed neither allocates nor
// constructs a vector (about 650 instructions of a 2 KiB reply's 20,000); a longer window's go to the heap,
// once. Grows only (a window never needs more than the longest one so far), keeping what it holds; a block it
// adds is for stage 1 to write (inline: left as it was; on the heap: zeroed), never read before that. As
// small as the vector it replaced (three words), so the parser's hot state keeps its layout; the inline
// storage lives elsewhere (the parser keeps it last).
class MaskBuffer {
 public:
  static constexpr std::size_t kInlineBlocks = 64;  // 4 KiB of text
  struct alignas(16) InlineMasks {                  // as a heap block is aligned (no over-aligned parser)
    std::byte bytes[kInlineBlocks * sizeof(text::stage1::BlockMasks)];
  };

  explicit MaskBuffer(InlineMasks& storage) noexcept
      : data_(reinterpret_cast<text::stage1::BlockMasks*>(storage.bytes)) {}
  MaskBuffer(const MaskBuffer&) = delete;
  MaskBuffer& operator=(const MaskBuffer&) = delete;

  std::size_t size() const noexcept { return size_; }
  text::stage1::BlockMasks* data() noexcept { return data_; }

  void resize(std::size_t blocks) {
    if (blocks <= size_) return;
    // Inline, nothing is written: stage 1 assigns every block of a window whole before any is read (every
    // kernel; scan() fills out[0, blocks_for(size))), and BlockMasks is an aggregate of integers whose
    // lifetime begins implicitly in the byte array. (Zeroing a 2 KiB reply's blocks cost a fresh parser a
    // memset call of about 105 instructions.)
    if (blocks > kInlineBlocks) {
      auto grown = std::make_unique<text::stage1::BlockMasks[]>(blocks);
      std::memcpy(static_cast<void*>(grown.get()), data_, size_ * sizeof(text::stage1::BlockMasks));
      heap_ = std::move(grown);
      data_ = heap_.get();
    }
    size_ = blocks;
  }

 private:
  text::stage1::BlockMasks* data_;
  std::size_t size_ = 0;
  std::unique_ptr<text::stage1::BlockMasks[]> heap_;
};

}  // namespace sigil::parse
