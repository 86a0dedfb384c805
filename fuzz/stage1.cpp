// libFuzzer target for stage 1 (sigil/text/stage1.h): every kernel this CPU runs gives the scalar kernel's
// output on the same bytes, whole and at every 64-byte-misaligned start; the scalar kernel's UTF-8 verdict
// matches the independent decoder (text::detail::utf8_scan), and a precise scan restarted where the check
// says finds the same first ill-formed unit.
#include "sigil/text/stage1.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "sigil/text/utf8.h"

namespace {

namespace stage1 = sigil::text::stage1;

void check(std::string_view s) {
  std::vector<stage1::BlockMasks> ref(stage1::blocks_for(s.size())), got(ref.size());
  const stage1::Utf8Check ref_check = stage1::scan(stage1::Kernel::Scalar, s, ref.data());
  for (stage1::Kernel k : stage1::kAllKernels) {
    if (k == stage1::Kernel::Scalar || !stage1::kernel_supported(k)) continue;
    FUZZ_CHECK(stage1::scan(k, s, got.data()) == ref_check);
    FUZZ_CHECK(got == ref);
    FUZZ_CHECK(stage1::validate(k, s) == ref_check);
  }
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const sigil::text::detail::Utf8Scan whole = sigil::text::detail::utf8_scan(p, s.size());
  FUZZ_CHECK(stage1::all_valid(ref_check, s.size()) == (whole.valid == s.size()));
  if (whole.valid != s.size()) {
    const std::size_t q = stage1::restart_point(s, ref_check);
    FUZZ_CHECK(q <= whole.valid);
    const sigil::text::detail::Utf8Scan rest = sigil::text::detail::utf8_scan(p + q, s.size() - q);
    FUZZ_CHECK(q + rest.valid == whole.valid && rest.bad == whole.bad && rest.incomplete == whole.incomplete);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view s(reinterpret_cast<const char*>(data), size);
  check(s);
  // The same bytes at other offsets: sequences then straddle block boundaries elsewhere.
  for (std::size_t skip : {1u, 3u, 61u})
    if (skip < s.size()) check(s.substr(skip));
  return 0;
}
