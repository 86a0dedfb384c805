// libFuzzer target for the lenient JSON reader and the incremental JSON scanner (spec 5.3, 5.4).
//
// Checks, on any input:
// - parse_lenient and parse_lenient_sequence never crash; a failure has a message, a success none;
// - what parse_lenient reads serializes to JSON that it reads back unchanged without repairs (and that
//   Boost.JSON accepts when the input was valid UTF-8);
// - the first result of parse_lenient_sequence is parse_lenient's; offsets only grow and stay in range;
// - the scanner, byte by byte, never goes below depth 0, is never in a string at depth 0, and closes the
//   first value at the byte where parse_lenient's value ended (when the reader closed it there itself);
// - feeding the scanner through skip_string_bytes gives the same value ends as byte-by-byte feeding.
#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/parse/json_lenient.h"
#include "sigil/parse/json_scanner.h"

namespace {

using sigil::parse::JsonScanner;
using sigil::parse::LenientResult;

#define FUZZ_CHECK(cond)                                                            \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                 \
    }                                                                               \
  } while (0)

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto b = static_cast<unsigned char>(s[i]);
    std::size_t n;
    std::uint32_t cp;
    if (b < 0x80) {
      ++i;
      continue;
    } else if (b >= 0xC2 && b <= 0xDF) {
      n = 1, cp = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
      n = 2, cp = b & 0x0F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      n = 3, cp = b & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;
    for (std::size_t k = 1; k <= n; ++k) {
      auto c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += n + 1;
  }
  return true;
}

// Equality where doubles may differ in the last bits: Boost.JSON 1.81's own number parsing is not always
// correctly rounded (e.g. 1.1045976777887135E20), while serialize and parse_lenient round-trip exactly.
bool close_json(const boost::json::value& a, const boost::json::value& b, int depth = 0) {
  if (depth > 600) return false;
  if (a.is_double() && b.is_double()) {
    double x = a.get_double(), y = b.get_double();
    return x == y || std::fabs(x - y) <= 1e-15 * std::max(std::fabs(x), std::fabs(y));
  }
  if (a.kind() != b.kind()) return a == b;
  if (a.is_array()) {
    const auto &p = a.get_array(), &q = b.get_array();
    if (p.size() != q.size()) return false;
    for (std::size_t i = 0; i < p.size(); ++i)
      if (!close_json(p[i], q[i], depth + 1)) return false;
    return true;
  }
  if (a.is_object()) {
    const auto &p = a.get_object(), &q = b.get_object();
    if (p.size() != q.size()) return false;
    for (const auto& m : p) {
      auto it = q.find(m.key());
      if (it == q.end() || !close_json(m.value(), it->value(), depth + 1)) return false;
    }
    return true;
  }
  return a == b;
}

bool has_repair(const LenientResult& r, std::string_view name) {
  return std::find(r.repairs.begin(), r.repairs.end(), name) != r.repairs.end();
}

void check_result_shape(const LenientResult& r, std::size_t size) {
  FUZZ_CHECK(r.consumed <= size);
  if (r.ok) {
    FUZZ_CHECK(r.error.empty());
    FUZZ_CHECK(r.value.is_object() || r.value.is_array());
  } else {
    FUZZ_CHECK(!r.error.empty());
    FUZZ_CHECK(r.error.find('\n') == std::string::npos);
    FUZZ_CHECK(r.value.is_null());
  }
}

// Value ends (offsets past the closing byte) seen by the scanner, fed byte by byte or through the fast path.
std::vector<std::size_t> scan(std::string_view text, bool fast) {
  JsonScanner sc;
  std::vector<std::size_t> ends;
  std::size_t i = 0;
  while (i < text.size()) {
    if (fast) {
      std::size_t n = sc.skip_string_bytes(text.substr(i));
      FUZZ_CHECK(n <= text.size() - i);
      if (n > 0) {
        FUZZ_CHECK(sc.in_string());
        i += n;
        continue;
      }
    }
    JsonScanner::Step st = sc.step(static_cast<unsigned char>(text[i]));
    FUZZ_CHECK(sc.depth() >= 0);
    if (sc.depth() == 0) FUZZ_CHECK(!sc.in_string() && !sc.in_comment());
    if (st == JsonScanner::Step::ValueEnd) {
      FUZZ_CHECK(sc.depth() == 0 && sc.value_complete());
      ends.push_back(i + 1);
    }
    if (st == JsonScanner::Step::Stray) {
      FUZZ_CHECK(sc.depth() == 0);
      // A stray byte is not consumed: feeding it again is stray again.
      FUZZ_CHECK(sc.step(static_cast<unsigned char>(text[i])) == JsonScanner::Step::Stray);
      break;
    }
    (void)sc.line_start_acceptable(static_cast<unsigned char>(text[i]));
    ++i;
  }
  return ends;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);

  LenientResult r = sigil::parse::parse_lenient(text);
  check_result_shape(r, size);

  if (r.ok) {
    std::string out = boost::json::serialize(r.value);
    LenientResult again = sigil::parse::parse_lenient(out);
    FUZZ_CHECK(again.ok);
    FUZZ_CHECK(again.value == r.value);
    FUZZ_CHECK(again.repairs.empty());
    FUZZ_CHECK(again.consumed == out.size());
    if (valid_utf8(text)) {
      boost::json::parse_options opts;
      opts.max_depth = 1024;
      boost::system::error_code ec;
      boost::json::value strict = boost::json::parse(out, ec, {}, opts);
      FUZZ_CHECK(!ec);
      FUZZ_CHECK(close_json(strict, r.value));
    }
  }

  std::size_t stop = 0;
  std::vector<LenientResult> seq = sigil::parse::parse_lenient_sequence(text, &stop);
  FUZZ_CHECK(!seq.empty());
  FUZZ_CHECK(stop <= size);
  FUZZ_CHECK(seq.front().ok == r.ok);
  FUZZ_CHECK(seq.front().consumed == r.consumed);
  FUZZ_CHECK(seq.front().error == r.error);
  FUZZ_CHECK(seq.front().value == r.value);
  std::size_t last = 0;
  for (std::size_t k = 0; k < seq.size(); ++k) {
    check_result_shape(seq[k], size);
    FUZZ_CHECK(k == 0 || seq[k].consumed > last);
    FUZZ_CHECK(seq[k].ok || k + 1 == seq.size());
    last = seq[k].consumed;
  }
  FUZZ_CHECK(stop >= last);

  std::vector<std::size_t> ends = scan(text, false);
  FUZZ_CHECK(ends == scan(text, true));
  // Where the reader itself found the closing bracket (no fence, nothing repaired at the end), the scanner
  // closed the value at the same byte; where brackets were missing it did not close it at all.
  if (r.ok && !has_repair(r, "code-fence")) {
    if (has_repair(r, "missing-close"))
      FUZZ_CHECK(ends.empty());
    else
      FUZZ_CHECK(!ends.empty() && ends.front() == r.consumed);
  }
  return 0;
}
