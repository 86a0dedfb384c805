// The waveform Discord shows on a voice message, from the Ogg Opus bytes without decoding them.
//
// What it promises: base64 of at most 256 bytes (0..255 each), one per slice of the recording, taken from
// the sizes of the Opus packets in each slice (a variable-bitrate encoder spends more bytes on louder,
// busier sound, so the shape follows the speech). Bytes that are not Ogg give a flat waveform, never an
// error.
#pragma once

#include <string>
#include <string_view>

namespace sigil::channels::discord {

std::string voice_waveform_base64(std::string_view ogg);

// Standard base64 with padding (text::base64_encode, under the name the Discord code and its tests use).
std::string base64_encode(std::string_view bytes);

}  // namespace sigil::channels::discord
