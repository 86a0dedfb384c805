// The one message of results that goes back to the model after a reply (spec 12.5; docs/security.md,
// "Results to the model"): one line per result, in reply order, bounded in bytes. Unbounded, a reply with
// 100,000 refused directives sent 4.9 MB to the model, and kept it in the conversation's history.
//
// What it promises:
// - At most max(max_bytes, kMinResultsBytes) bytes, every line ending in '\n'.
// - When everything fits, exactly the lines, in order. Otherwise the first lines that fit whole, in order,
//   then one final line saying how many were left out:
//     [17 more results left out: the results message is limited to 16384 bytes]
//   A first line that alone does not fit is cut at a character boundary and ends with "…" (so the model
//   always learns something of the first result); it does not count as left out.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace sigil::exec {

inline constexpr std::size_t kDefaultResultsBytes = 16 * 1024;
// Room for the final line with any count, and a cut first line.
inline constexpr std::size_t kMinResultsBytes = 256;

std::string results_message(const std::vector<std::string>& lines, std::size_t max_bytes);

}  // namespace sigil::exec
