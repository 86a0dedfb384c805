#include "sigil/channels/discord/voice_waveform.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sigil/text/base64.h"

namespace sigil::channels::discord {

std::string base64_encode(std::string_view bytes) { return text::base64_encode(bytes); }

std::string voice_waveform_base64(std::string_view ogg) {
  // Packet sizes from the Ogg pages' segment tables (RFC 3533): a packet ends at a lacing value below 255.
  std::vector<std::size_t> packets;
  std::size_t current = 0;
  for (std::size_t at = 0; at + 27 <= ogg.size() && ogg.substr(at, 4) == "OggS";) {
    const std::size_t segments = static_cast<unsigned char>(ogg[at + 26]);
    if (at + 27 + segments > ogg.size()) break;
    std::size_t body = 0;
    for (std::size_t i = 0; i < segments; ++i) {
      const std::size_t lace = static_cast<unsigned char>(ogg[at + 27 + i]);
      current += lace;
      body += lace;
      if (lace < 255) {
        packets.push_back(current);
        current = 0;
      }
    }
    at += 27 + segments + body;
  }
  // The first two packets are the Opus headers, not sound.
  if (packets.size() > 2) packets.erase(packets.begin(), packets.begin() + 2);
  constexpr std::size_t kSamples = 64;
  std::string wave;
  if (packets.empty()) return base64_encode(std::string(kSamples, '\x80'));
  const std::size_t n = std::min(kSamples, packets.size());
  std::vector<double> level(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t from = i * packets.size() / n, to = std::max(from + 1, (i + 1) * packets.size() / n);
    for (std::size_t p = from; p < to; ++p) level[i] += static_cast<double>(packets[p]);
    level[i] /= static_cast<double>(to - from);
  }
  const double top = *std::max_element(level.begin(), level.end());
  for (double v : level) wave += static_cast<char>(top > 0 ? static_cast<int>(v * 255.0 / top) : 128);
  return base64_encode(wave);
}

}  // namespace sigil::channels::discord
