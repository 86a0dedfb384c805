// The `voice` action's back-end (spec 13): text -> espeak-ng -> PCM -> 48 kHz -> libopusenc -> Ogg Opus.
//
// espeak-ng is GPL, so it is never linked: it runs as a separate process (posix_spawn, no shell, its own
// process group, descriptors 0-2 only, an allow-listed environment plus ESPEAK_DATA_PATH: see
// src/actions/subprocess.h), `espeak-ng --stdout --stdin -b 1 -v <voice> -s <rate>`, with the text on its
// stdin (never on its command line) and its WAV read from a pipe under a poll()-based time-out; on time-out
// its whole process group is killed with SIGKILL, and it is always reaped. The WAV (PCM 16-bit mono, 22050 Hz
// from espeak-ng; any common rate is accepted) is resampled to 48 kHz (polyphase Kaiser-windowed sinc, see
// src/actions/resample.h) and encoded by libopusenc (BSD) as mono Opus (VOIP application, voice signal,
// ~24 kbit/s) into a file made with mkostemps (mode 0600) in the temp folder. The file is deleted on every
// failure path, and by the VoiceNote that owns it on success.
//
// The time-out covers espeak-ng's run (spawn to exit); resampling and encoding (tens of milliseconds for a
// sentence) run after it. Children are reaped with waitpid: a process that sets SIGCHLD to SIG_IGN makes
// them reap themselves, and then synthesize() fails with an io error instead of reading an exit status.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "sigil/actions/result.h"

namespace sigil::actions {

// A synthesized voice note: an Ogg Opus file, 48 kHz mono, owned by this object. The file is deleted when
// the VoiceNote is destroyed, unless release() handed it over to someone else.
class VoiceNote {
 public:
  static constexpr int kSampleRate = 48000;
  static constexpr int kChannels = 1;
  static constexpr std::string_view kMimeType = "audio/ogg; codecs=opus";

  explicit VoiceNote(std::filesystem::path path) noexcept : path_(std::move(path)) {}
  VoiceNote(VoiceNote&& other) noexcept;
  VoiceNote& operator=(VoiceNote&& other) noexcept;
  VoiceNote(const VoiceNote&) = delete;
  VoiceNote& operator=(const VoiceNote&) = delete;
  ~VoiceNote();

  const std::filesystem::path& path() const noexcept { return path_; }
  std::chrono::milliseconds duration() const noexcept { return duration_; }
  std::uint64_t bytes() const noexcept { return bytes_; }

  // Gives up ownership: the file stays, and its path is returned; the caller deletes it.
  std::filesystem::path release() noexcept;

 private:
  friend class VoiceSynth;
  std::filesystem::path path_;  // empty once released or moved from
  std::chrono::milliseconds duration_{0};
  std::uint64_t bytes_ = 0;
};

class VoiceSynth {
 public:
  struct Options {
    std::string espeak_binary = "espeak-ng";   // a path, or a name looked up in PATH
    std::string voice = "en";                  // espeak-ng voice: letters, digits and - _ + / . only
    int words_per_minute = 175;                // espeak-ng -s, 80..500
    std::size_t max_text_bytes = 4096;         // longer text is refused, not cut
    std::chrono::milliseconds timeout{20000};  // for espeak-ng's run
    std::filesystem::path temp_dir;            // empty: std::filesystem::temp_directory_path()
    int bitrate = 24000;                       // bits per second, 6000..128000
    std::size_t max_wav_bytes = 64u << 20;     // espeak-ng output beyond this is killed (~12 min at 22 kHz)
  };

  explicit VoiceSynth(Options options) : options_(std::move(options)) {}

  // Refuses empty (or whitespace-only) text, text over max_text_bytes, and text with a NUL byte
  // (invalid_argument). espeak-ng missing: tool_missing, "espeak-ng not found: install espeak-ng";
  // failing or writing no usable audio: tool_failed with its exit status and first stderr line; too
  // slow: timeout. Thread-safe: each call has its own process and file.
  Result<VoiceNote> synthesize(std::string_view text) const;

  // synthesize()'s checks of the text alone (empty, too long, NUL byte), without running anything: lets a
  // caller refuse text before charging it to a budget.
  Result<void> check_text(std::string_view text) const;

  const Options& options() const noexcept { return options_; }

 private:
  Options options_;
};

}  // namespace sigil::actions
