#include "resample.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <numeric>

namespace sigil::actions::detail {
namespace {

constexpr int kMaxRate = 384000;
constexpr std::int64_t kMaxPhases = 4096;
constexpr int kHalfTaps = 24;        // K when upsampling
constexpr double kKaiserBeta = 8.0;  // ~ -80 dB stop band
constexpr double kCutoff = 0.45;     // of the lower rate

// Modified Bessel function of the first kind, order 0 (power series; converges fast for beta <= 20).
double bessel_i0(double x) {
  double sum = 1.0, term = 1.0;
  const double q = x * x / 4.0;
  for (int k = 1; k < 64; ++k) {
    term *= q / (static_cast<double>(k) * k);
    sum += term;
    if (term < sum * 1e-15) break;
  }
  return sum;
}

double sinc(double x) {
  if (std::abs(x) < 1e-12) return 1.0;
  const double px = std::numbers::pi * x;
  return std::sin(px) / px;
}

}  // namespace

std::optional<std::vector<float>> resample(std::span<const float> in, int in_rate, int out_rate) {
  if (in_rate <= 0 || out_rate <= 0 || in_rate > kMaxRate || out_rate > kMaxRate) return std::nullopt;
  if (in_rate == out_rate) return std::vector<float>(in.begin(), in.end());
  const std::int64_t g = std::gcd(in_rate, out_rate);
  const std::int64_t L = out_rate / g;  // phases
  const std::int64_t M = in_rate / g;   // input step per output sample, in 1/L units
  if (L > kMaxPhases) return std::nullopt;

  // Cut-off in cycles per input sample, and the half-width K in input samples.
  const double ratio = static_cast<double>(out_rate) / in_rate;
  const double cutoff = kCutoff * std::min(1.0, ratio);
  const int K = static_cast<int>(std::ceil(kHalfTaps * std::max(1.0, 1.0 / ratio)));
  const std::size_t taps = static_cast<std::size_t>(2 * K);

  std::vector<float> table(static_cast<std::size_t>(L) * taps);
  const double i0_beta = bessel_i0(kKaiserBeta);
  std::vector<double> coeffs(taps);
  for (std::int64_t p = 0; p < L; ++p) {
    float* row = &table[static_cast<std::size_t>(p) * taps];
    double sum = 0.0;
    for (std::size_t k = 0; k < taps; ++k) {
      const double tau = static_cast<double>(K - 1 - static_cast<int>(k)) + static_cast<double>(p) / L;
      const double x = tau / K;
      const double w = std::abs(x) >= 1.0 ? 0.0 : bessel_i0(kKaiserBeta * std::sqrt(1.0 - x * x)) / i0_beta;
      coeffs[k] = 2.0 * cutoff * sinc(2.0 * cutoff * tau) * w;
      sum += coeffs[k];
    }
    for (std::size_t k = 0; k < taps; ++k) row[k] = static_cast<float>(coeffs[k] / sum);
  }

  const auto n_in = static_cast<std::int64_t>(in.size());
  const std::int64_t n_out = (n_in * L + M - 1) / M;
  std::vector<float> out(static_cast<std::size_t>(n_out));
  for (std::int64_t n = 0; n < n_out; ++n) {
    const std::int64_t pos = n * M;
    const std::int64_t i = pos / L;
    const float* row = &table[static_cast<std::size_t>(pos % L) * taps];
    const std::int64_t first = i - K + 1;
    double acc = 0.0;
    if (first >= 0 && first + static_cast<std::int64_t>(taps) <= n_in) {
      const float* x = &in[static_cast<std::size_t>(first)];
      for (std::size_t k = 0; k < taps; ++k) acc += static_cast<double>(x[k]) * row[k];
    } else {
      for (std::size_t k = 0; k < taps; ++k) {
        const std::int64_t j = first + static_cast<std::int64_t>(k);
        if (j >= 0 && j < n_in) acc += static_cast<double>(in[static_cast<std::size_t>(j)]) * row[k];
      }
    }
    out[static_cast<std::size_t>(n)] = static_cast<float>(acc);
  }
  return out;
}

}  // namespace sigil::actions::detail
