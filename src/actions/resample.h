// Sample-rate conversion for the voice pipeline (espeak-ng's 22050 Hz to Opus's 48 kHz).
//
// A rational polyphase resampler with a Kaiser-windowed sinc (beta 8, about -80 dB stop band), chosen over
// linear interpolation, which images audibly when upsampling by 320/147. For in -> out with
// g = gcd(in, out), L = out/g, M = in/g, output sample n sits at input time n*M/L = i + p/L, and is the sum
// of the 2K input samples around i weighted by phase p's row of a table of L rows, computed once per call.
// The cut-off is 0.45 of the lower of the two rates (so a guard band below Nyquist); each row is scaled to
// a DC gain of exactly 1. K is 24 input samples when upsampling and widens by in/out when downsampling.
// Samples outside the input count as 0. L is capped at 4096 (the table), which covers every common rate
// (8000, 11025, 16000, 22050, 24000, 32000, 44100, 48000, 96000 to 48000 and back).
#pragma once

#include <optional>
#include <span>
#include <vector>

namespace sigil::actions::detail {

// ceil(n * out / in) samples, or nullopt when a rate is not in 1..384000 or L exceeds 4096.
std::optional<std::vector<float>> resample(std::span<const float> in, int in_rate, int out_rate);

}  // namespace sigil::actions::detail
