#include "sigil/actions/voice.h"

#include <fcntl.h>
#include <opus/opusenc.h>
#include <stdlib.h>  // mkostemps
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <span>
#include <system_error>
#include <vector>

#include "resample.h"
#include "sigil/actions/unique_fd.h"
#include "sigil/text/ascii.h"
#include "subprocess.h"

namespace sigil::actions {

// ---------------------------------------------------------------- VoiceNote

VoiceNote::VoiceNote(VoiceNote&& other) noexcept
    : path_(std::exchange(other.path_, {})), duration_(other.duration_), bytes_(other.bytes_) {}

VoiceNote& VoiceNote::operator=(VoiceNote&& other) noexcept {
  if (this != &other) {
    if (!path_.empty()) ::unlink(path_.c_str());
    path_ = std::exchange(other.path_, {});
    duration_ = other.duration_;
    bytes_ = other.bytes_;
  }
  return *this;
}

VoiceNote::~VoiceNote() {
  if (!path_.empty()) ::unlink(path_.c_str());
}

std::filesystem::path VoiceNote::release() noexcept { return std::exchange(path_, {}); }

// ---------------------------------------------------------------- the pipeline

namespace {

std::string errno_text(int err) { return std::system_category().message(err); }

// First non-empty line of a program's stderr, trimmed and cut, printable.
std::string first_line(std::string_view s) {
  while (!s.empty()) {
    const std::size_t nl = s.find('\n');
    const std::string_view line = text::ascii::trim(s.substr(0, nl));
    if (!line.empty()) {
      std::string out;
      for (char c : line.substr(0, 200)) out.push_back(static_cast<unsigned char>(c) < 0x20 ? '?' : c);
      return out;
    }
    if (nl == std::string_view::npos) break;
    s.remove_prefix(nl + 1);
  }
  return {};
}

Result<void> check_options(const VoiceSynth::Options& o) {
  if (o.espeak_binary.empty())
    return make_error(ErrorCode::invalid_argument, "no espeak-ng binary configured");
  if (o.voice.empty() || o.voice.size() > 64 || o.voice.front() == '-' ||
      !std::all_of(o.voice.begin(), o.voice.end(), [](char c) {
        return text::ascii::is_alnum(c) || c == '-' || c == '_' || c == '+' || c == '/' || c == '.';
      }))
    return make_error(ErrorCode::invalid_argument, "invalid espeak-ng voice name '" + o.voice + "'");
  if (o.words_per_minute < 80 || o.words_per_minute > 500)
    return make_error(ErrorCode::invalid_argument, "speech rate must be 80..500 words per minute");
  if (o.bitrate < 6000 || o.bitrate > 128000)
    return make_error(ErrorCode::invalid_argument, "Opus bitrate must be 6000..128000 bit/s");
  if (o.timeout.count() <= 0) return make_error(ErrorCode::invalid_argument, "the time-out must be positive");
  return {};
}

std::uint32_t le32(std::string_view s, std::size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data() + at);
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
         std::uint32_t{p[3]} << 24;
}
std::uint16_t le16(std::string_view s, std::size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data() + at);
  return static_cast<std::uint16_t>(p[0] | p[1] << 8);
}

struct Pcm {
  int rate = 0;
  std::vector<float> samples;  // mono, -1..1
};

// RIFF/WAVE, PCM 16-bit. espeak-ng --stdout cannot seek back, so its RIFF and data sizes are placeholders
// (0x7ffff0xx): the data runs to the end of what was read, whatever the header says. Channels are mixed
// down to mono.
Result<Pcm> parse_wav(std::string_view wav) {
  auto bad = [](std::string what) {
    return make_error(ErrorCode::tool_failed, "espeak-ng's output is not usable audio: " + std::move(what));
  };
  if (wav.size() < 12 || wav.substr(0, 4) != "RIFF" || wav.substr(8, 4) != "WAVE")
    return bad("not a WAV file");
  std::size_t pos = 12;
  bool have_fmt = false;
  unsigned format = 0, channels = 0, bits = 0;
  std::uint32_t rate = 0;
  std::string_view data;
  bool have_data = false;
  while (pos + 8 <= wav.size()) {
    const std::string_view id = wav.substr(pos, 4);
    const std::uint32_t len = le32(wav, pos + 4);
    pos += 8;
    const std::size_t avail = wav.size() - pos;
    if (id == "fmt ") {
      if (len < 16 || avail < 16) return bad("short fmt chunk");
      format = le16(wav, pos);
      channels = le16(wav, pos + 2);
      rate = le32(wav, pos + 4);
      bits = le16(wav, pos + 14);
      if (format == 0xFFFE && len >= 40 && avail >= 26)
        format = le16(wav, pos + 24);  // WAVE_FORMAT_EXTENSIBLE
      have_fmt = true;
    } else if (id == "data") {
      data = wav.substr(pos, std::min<std::size_t>(len, avail));
      have_data = true;
      break;
    }
    if (len >= avail) break;
    pos += len + (len & 1);
  }
  if (!have_fmt) return bad("no fmt chunk");
  if (!have_data) return bad("no data chunk");
  if (format != 1 || bits != 16)
    return bad("format " + std::to_string(format) + ", " + std::to_string(bits) +
               " bits; expected PCM 16-bit");
  if (channels < 1 || channels > 8) return bad(std::to_string(channels) + " channels");
  if (rate < 1000 || rate > 384000) return bad("sample rate " + std::to_string(rate));

  Pcm pcm;
  pcm.rate = static_cast<int>(rate);
  const std::size_t frame = 2u * channels;
  const std::size_t frames = data.size() / frame;
  pcm.samples.resize(frames);
  for (std::size_t f = 0; f < frames; ++f) {
    float sum = 0.0f;
    for (unsigned c = 0; c < channels; ++c)
      sum += static_cast<float>(static_cast<std::int16_t>(le16(data, f * frame + 2u * c)));
    pcm.samples[f] = sum / (32768.0f * static_cast<float>(channels));
  }
  return pcm;
}

// libopusenc writes pages through these callbacks straight into our descriptor.
struct FileSink {
  int fd;
  int error = 0;
};

int sink_write(void* user, const unsigned char* ptr, opus_int32 len) {
  auto* sink = static_cast<FileSink*>(user);
  std::size_t done = 0;
  while (done < static_cast<std::size_t>(len)) {
    const ssize_t w = ::write(sink->fd, ptr + done, static_cast<std::size_t>(len) - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      sink->error = errno;
      return 1;
    }
    done += static_cast<std::size_t>(w);
  }
  return 0;
}

int sink_close(void*) { return 0; }  // the descriptor is the caller's

struct CommentsFree {
  void operator()(OggOpusComments* c) const noexcept { ope_comments_destroy(c); }
};
struct EncoderFree {
  void operator()(OggOpusEnc* e) const noexcept { ope_encoder_destroy(e); }
};

Error opus_error(std::string_view what, int code, const FileSink& sink) {
  std::string msg = "Opus encoding failed (" + std::string(what) + "): " + ope_strerror(code);
  if (sink.error != 0) msg += ": " + errno_text(sink.error);
  return make_error(ErrorCode::io, std::move(msg));
}

// FNV-1a over the samples' bytes, folded to a positive int.
int serial_for(std::span<const float> pcm) {
  std::uint32_t h = 2166136261u;
  const auto* bytes = reinterpret_cast<const unsigned char*>(pcm.data());
  for (std::size_t i = 0; i < pcm.size_bytes(); ++i) h = (h ^ bytes[i]) * 16777619u;
  return static_cast<int>(h & 0x7fffffffu);
}

Result<void> encode_ogg_opus(int fd, std::span<const float> pcm48, int bitrate) {
  // libopusenc 0.2.1 asserts in ope_encoder_drain when nothing was written.
  if (pcm48.empty()) return make_error(ErrorCode::tool_failed, "no audio to encode");
  FileSink sink{fd};
  const OpusEncCallbacks callbacks{sink_write, sink_close};
  std::unique_ptr<OggOpusComments, CommentsFree> comments(ope_comments_create());
  if (!comments) return make_error(ErrorCode::io, "Opus encoding failed: out of memory");
  int err = OPE_OK;
  std::unique_ptr<OggOpusEnc, EncoderFree> enc(ope_encoder_create_callbacks(
      &callbacks, &sink, comments.get(), VoiceNote::kSampleRate, VoiceNote::kChannels, 0, &err));
  if (!enc || err != OPE_OK) return opus_error("create", err, sink);
  if ((err = ope_encoder_ctl(enc.get(), OPUS_SET_BITRATE(bitrate))) != OPE_OK)
    return opus_error("bitrate", err, sink);
  if ((err = ope_encoder_ctl(enc.get(), OPUS_SET_APPLICATION(OPUS_APPLICATION_VOIP))) != OPE_OK)
    return opus_error("application", err, sink);
  if ((err = ope_encoder_ctl(enc.get(), OPUS_SET_SIGNAL(OPUS_SIGNAL_VOICE))) != OPE_OK)
    return opus_error("signal", err, sink);
  // The Ogg stream's serial number is random by default; one derived from the audio makes the same text
  // give the same bytes, so identical voice notes in one turn are recognised and sent once (spec 12.4).
  if ((err = ope_encoder_ctl(enc.get(), OPE_SET_SERIALNO(serial_for(pcm48)))) != OPE_OK)
    return opus_error("serial number", err, sink);
  // 200 ms at a time; libopusenc buffers and frames (20 ms) internally.
  constexpr std::size_t kBlock = 48000 / 50 * 10;
  for (std::size_t at = 0; at < pcm48.size(); at += kBlock) {
    const std::size_t n = std::min(kBlock, pcm48.size() - at);
    if ((err = ope_encoder_write_float(enc.get(), pcm48.data() + at, static_cast<int>(n))) != OPE_OK)
      return opus_error("write", err, sink);
  }
  if ((err = ope_encoder_drain(enc.get())) != OPE_OK) return opus_error("drain", err, sink);
  return {};
}

}  // namespace

Result<void> VoiceSynth::check_text(std::string_view text) const {
  if (std::all_of(text.begin(), text.end(), sigil::text::ascii::is_space))
    return make_error(ErrorCode::invalid_argument, "nothing to say: the text is empty");
  if (text.size() > options_.max_text_bytes)
    return make_error(ErrorCode::invalid_argument,
                      "text too long for a voice note: " + std::to_string(text.size()) +
                          " bytes, the limit is " + std::to_string(options_.max_text_bytes));
  if (text.find('\0') != std::string_view::npos)
    return make_error(ErrorCode::invalid_argument, "the text contains a NUL byte");
  return {};
}

Result<VoiceNote> VoiceSynth::synthesize(std::string_view text) const {
  if (auto ok = check_options(options_); !ok) return std::move(ok).error();
  if (auto ok = check_text(text); !ok) return std::move(ok).error();

  std::error_code ec;
  const std::filesystem::path dir =
      options_.temp_dir.empty() ? std::filesystem::temp_directory_path(ec) : options_.temp_dir;
  if (ec) return make_error(ErrorCode::io, "no temporary folder: " + ec.message());

  // espeak-ng: the text on stdin, read whole (--stdin), as UTF-8 (-b 1), no SSML (no -m).
  detail::RunRequest request;
  request.program = options_.espeak_binary;
  request.args = {"--stdout", "--stdin",      "-b", "1",
                  "-v",       options_.voice, "-s", std::to_string(options_.words_per_minute)};
  request.input = std::string(text);
  request.timeout = options_.timeout;
  request.max_output = options_.max_wav_bytes;
  // espeak-ng's own variable for where its voices live, for an installation outside the default path.
  request.pass_env = {"ESPEAK_DATA_PATH"};
  auto run = detail::run_captured(request);
  if (!run) {
    Error e = std::move(run).error();
    if (e.code == ErrorCode::tool_missing)
      e.message = "espeak-ng not found: install espeak-ng (looked for '" + options_.espeak_binary + "')";
    else
      e.message = "espeak-ng: " + e.message;
    return e;
  }
  if (!run->exited)
    return make_error(ErrorCode::tool_failed,
                      "espeak-ng was killed by signal " + std::to_string(run->signal));
  if (run->exit_code != 0) {
    std::string msg = "espeak-ng failed (exit status " + std::to_string(run->exit_code) + ")";
    if (const std::string why = first_line(run->errors); !why.empty()) msg += ": " + why;
    return make_error(ErrorCode::tool_failed, std::move(msg));
  }

  auto pcm = parse_wav(run->output);
  if (!pcm) return std::move(pcm).error();
  if (pcm->samples.empty()) return make_error(ErrorCode::tool_failed, "espeak-ng produced no audio");
  auto pcm48 = detail::resample(pcm->samples, pcm->rate, VoiceNote::kSampleRate);
  if (!pcm48)
    return make_error(ErrorCode::tool_failed, "espeak-ng's sample rate " + std::to_string(pcm->rate) +
                                                  " Hz cannot be converted to 48 kHz");

  std::string name = (dir / "sigil-voice-XXXXXX.ogg").string();
  UniqueFd fd(::mkostemps(name.data(), 4, O_CLOEXEC));
  if (!fd)
    return make_error(ErrorCode::io, "cannot create a file in '" + dir.string() + "': " + errno_text(errno));
  VoiceNote note{
      std::filesystem::path(name)};  // owns the file from here: deleted on every return below but one

  if (auto enc = encode_ogg_opus(fd.get(), *pcm48, options_.bitrate); !enc) return std::move(enc).error();
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return make_error(ErrorCode::io, "fstat failed: " + errno_text(errno));
  if (::close(fd.release()) != 0) return make_error(ErrorCode::io, "close failed: " + errno_text(errno));
  note.bytes_ = static_cast<std::uint64_t>(st.st_size);
  note.duration_ =
      std::chrono::milliseconds(static_cast<std::int64_t>(pcm48->size()) * 1000 / VoiceNote::kSampleRate);
  return note;
}

}  // namespace sigil::actions
