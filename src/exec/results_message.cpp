#include "sigil/exec/results_message.h"

#include <algorithm>
#include <string_view>

#include "sigil/text/utf8.h"

namespace sigil::exec {
namespace {

std::string left_out_line(std::size_t count, std::size_t max_bytes) {
  return "[" + std::to_string(count) + (count == 1 ? " more result" : " more results") +
         " left out: the results message is limited to " + std::to_string(max_bytes) + " bytes]\n";
}

}  // namespace

std::string results_message(const std::vector<std::string>& lines, std::size_t max_bytes) {
  max_bytes = std::max(max_bytes, kMinResultsBytes);
  std::size_t total = 0;
  for (const std::string& line : lines) total += line.size() + 1;
  std::string out;
  if (total <= max_bytes) {
    out.reserve(total);
    for (const std::string& line : lines) (out += line) += '\n';
    return out;
  }
  // The final line is never longer than with every line left out.
  const std::size_t room = max_bytes - left_out_line(lines.size(), max_bytes).size();
  std::size_t kept = 0;
  while (kept < lines.size() && out.size() + lines[kept].size() + 1 <= room) (out += lines[kept++]) += '\n';
  if (kept == 0 && !lines.empty()) {
    static constexpr std::string_view kCut = "…";
    const std::string_view first = lines[0];
    out.append(first.substr(0, text::safe_cut(first, room - kCut.size() - 1))).append(kCut) += '\n';
    kept = 1;
  }
  if (kept < lines.size()) out += left_out_line(lines.size() - kept, max_bytes);
  return out;
}

}  // namespace sigil::exec
