// Spec 13 (voice): real espeak-ng -> Ogg Opus, checked with opusinfo; fake espeak-ng scripts for the
// failure paths (slow, failing, missing, garbage); and the resampler.
#include "sigil/actions/voice.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../support/temp_dir.h"
#include "actions/resample.h"
#include "actions/subprocess.h"

namespace sigil::actions {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::vector<std::string> list_dir(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  return out;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Processes whose parent is this process (zombies included).
std::vector<pid_t> children_of_self() {
  std::vector<pid_t> out;
  const pid_t self = ::getpid();
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = read_file(e.path() / "stat");
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == self)
      out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

// 'R', 'S', 'Z', ... or 0 when the process is gone.
char process_state(pid_t pid) {
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return 0;
  return stat[close + 2];
}

class VoiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    temp_ = base_ / "tmp";     // the synthesizer's temp folder: must end every test empty
    scripts_ = base_ / "bin";  // fake espeak-ng programs
    fs::create_directories(temp_);
    fs::create_directories(scripts_);
  }
  void TearDown() override {
    EXPECT_TRUE(list_dir(temp_).empty()) << "temp files left: " << ::testing::PrintToString(list_dir(temp_));
    EXPECT_TRUE(children_of_self().empty())
        << "children left: " << ::testing::PrintToString(children_of_self());
  }

  VoiceSynth::Options options() const {
    VoiceSynth::Options o;
    o.temp_dir = temp_;
    return o;
  }

  fs::path script(const std::string& name, const std::string& body) {
    const fs::path p = scripts_ / name;
    {
      std::ofstream out(p);
      out << "#!/bin/sh\n" << body;
    }
    fs::permissions(p, fs::perms::owner_all);
    return p;
  }

  // synthesize("Hello.") with `o`, espeak-ng being a script `name` that runs `body`.
  Result<VoiceNote> synthesize_with(const std::string& name, const std::string& body, VoiceSynth::Options o) {
    o.espeak_binary = script(name, body).string();
    return VoiceSynth(o).synthesize("Hello.");
  }
  Result<VoiceNote> synthesize_with(const std::string& name, const std::string& body) {
    return synthesize_with(name, body, options());
  }

  // A synthesis that failed with `code` and a message holding `part`.
  static ::testing::AssertionResult failed_with(const Result<VoiceNote>& note, ErrorCode code,
                                                std::string_view part = {}) {
    if (note.ok()) return ::testing::AssertionFailure() << "it made a note";
    const std::string& message = note.error().message;
    if (note.error().code != code || message.find(part) == std::string::npos)
      return ::testing::AssertionFailure()
             << "error " << static_cast<int>(note.error().code) << ": " << message;
    return ::testing::AssertionSuccess();
  }

  // Runs opusinfo on a file; exit status and output.
  static detail::RunOutcome opusinfo(const fs::path& file) {
    detail::RunRequest r;
    r.program = "opusinfo";
    r.args = {file.string()};
    r.timeout = 30s;
    auto out = detail::run_captured(r);
    EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().message);
    return out.ok() ? std::move(*out) : detail::RunOutcome{};
  }

  test::TempDir tmp_{"sigil-voice-test"};
  const fs::path base_ = tmp_.path();
  fs::path temp_, scripts_;
};

// ---------------------------------------------------------------- real espeak-ng

TEST_F(VoiceTest, SentenceBecomesOggOpusThatOpusinfoAccepts) {
  VoiceSynth synth(options());
  const auto started = std::chrono::steady_clock::now();
  auto note =
      synth.synthesize("Hello from sigil. This sentence is spoken by espeak and encoded as Ogg Opus.");
  const auto elapsed = std::chrono::steady_clock::now() - started;
  ASSERT_TRUE(note.ok()) << note.error().message;
  std::printf("[ VOICE    ] synthesis took %lld ms: %lld ms of audio, %llu bytes\n",
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()),
              static_cast<long long>(note->duration().count()),
              static_cast<unsigned long long>(note->bytes()));

  EXPECT_EQ(note->path().parent_path(), temp_);
  ASSERT_TRUE(fs::is_regular_file(note->path()));
  EXPECT_EQ(fs::file_size(note->path()), note->bytes());
  EXPECT_GE(note->duration(), 500ms);
  EXPECT_LE(note->duration(), 10s);
  EXPECT_EQ(note->path().extension(), ".ogg");
  const std::string bytes = read_file(note->path());
  EXPECT_EQ(bytes.substr(0, 4), "OggS");
  EXPECT_NE(bytes.find("OpusHead"), std::string::npos);
  EXPECT_NE(bytes.find("OpusTags"), std::string::npos);

  const auto info = opusinfo(note->path());
  EXPECT_TRUE(info.exited);
  EXPECT_EQ(info.exit_code, 0) << info.output << info.errors;
  EXPECT_NE(info.output.find("Channels: 1"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("Original sample rate: 48000"), std::string::npos) << info.output;
  // opusinfo's playback length agrees with ours (within pre-skip and padding).
  std::smatch m;
  ASSERT_TRUE(std::regex_search(info.output, m, std::regex(R"(Playback length: (\d+)m:(\d+(\.\d+)?)s)")))
      << info.output;
  const double seconds = std::stod(m[1]) * 60 + std::stod(m[2]);
  EXPECT_NEAR(seconds * 1000, static_cast<double>(note->duration().count()), 100.0) << info.output;

  // The note owns its file: gone with it.
  const fs::path path = note->path();
  { auto moved = std::move(*note); }
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(VoiceTest, ReleaseHandsTheFileOver) {
  VoiceSynth synth(options());
  fs::path kept;
  {
    auto note = synth.synthesize("Keep me.");
    ASSERT_TRUE(note.ok()) << note.error().message;
    kept = note->release();
    EXPECT_TRUE(note->path().empty());
  }
  ASSERT_TRUE(fs::exists(kept));
  EXPECT_EQ(opusinfo(kept).exit_code, 0);
  fs::remove(kept);
}

TEST_F(VoiceTest, UnicodeAndShellMetacharactersAreJustText) {
  VoiceSynth synth(options());
  auto note =
      synth.synthesize("Größe: $(touch pwned) `id` ; rm -rf / ; \"quoted\" 'single' <b>tag</b> -v xx");
  ASSERT_TRUE(note.ok()) << note.error().message;
  EXPECT_FALSE(fs::exists("pwned"));
  EXPECT_FALSE(fs::exists(temp_ / "pwned"));
}

TEST_F(VoiceTest, UnknownVoiceIsAClearError) {
  auto o = options();
  o.voice = "nosuchvoice";
  auto note = VoiceSynth(o).synthesize("Hello.");
  ASSERT_TRUE(failed_with(note, ErrorCode::tool_failed, "espeak-ng failed"));
}

// ---------------------------------------------------------------- input checks

TEST_F(VoiceTest, EmptyTextIsRefused) {
  VoiceSynth synth(options());
  for (std::string_view text : {"", " ", "\n\t  \r\n"}) {
    auto note = synth.synthesize(text);
    ASSERT_TRUE(failed_with(note, ErrorCode::invalid_argument, "empty"));
  }
}

TEST_F(VoiceTest, OverLengthTextIsRefusedNotCut) {
  VoiceSynth synth(options());
  EXPECT_EQ(synth.options().max_text_bytes, 4096u);
  auto note = synth.synthesize(std::string(4097, 'a'));
  ASSERT_TRUE(failed_with(note, ErrorCode::invalid_argument, "4097 bytes, the limit is 4096"));

  auto o = options();
  o.max_text_bytes = 10;
  EXPECT_EQ(VoiceSynth(o).synthesize("eleven char").error().code, ErrorCode::invalid_argument);
  EXPECT_TRUE(VoiceSynth(o).synthesize("ten chars.").ok());
}

TEST_F(VoiceTest, NulAndBadOptionsAreRefused) {
  EXPECT_EQ(VoiceSynth(options()).synthesize(std::string("a\0b", 3)).error().code,
            ErrorCode::invalid_argument);
  for (const std::string& voice :
       std::vector<std::string>{"", "-w/tmp/x", "en us", "en;rm", std::string(65, 'a')}) {
    auto o = options();
    o.voice = voice;
    EXPECT_EQ(VoiceSynth(o).synthesize("Hi.").error().code, ErrorCode::invalid_argument) << voice;
  }
  auto o = options();
  o.words_per_minute = 5;
  EXPECT_EQ(VoiceSynth(o).synthesize("Hi.").error().code, ErrorCode::invalid_argument);
}

// ---------------------------------------------------------------- failure paths with fake espeak-ng

TEST_F(VoiceTest, SlowEspeakTimesOutLeavingNoTempFileAndNoZombie) {
  // The script and the sleep it starts both write their pids; both must be dead after the time-out.
  const fs::path pids = base_ / "pids";
  auto o = options();
  o.espeak_binary = script("slow-espeak", "echo $$ > '" + pids.string() +
                                              "'\n"
                                              "printf 'RIFF'\n"
                                              "sleep 30 &\n"
                                              "echo $! >> '" +
                                              pids.string() +
                                              "'\n"
                                              "wait\n")
                        .string();
  o.timeout = 500ms;
  const auto started = std::chrono::steady_clock::now();
  auto note = VoiceSynth(o).synthesize("This will never be spoken.");
  const auto elapsed = std::chrono::steady_clock::now() - started;
  ASSERT_TRUE(failed_with(note, ErrorCode::timeout, "timed out after 500 ms"));
  EXPECT_GE(elapsed, 500ms);
  EXPECT_LT(elapsed, 5s);

  std::ifstream in(pids);
  pid_t shell = 0, sleeper = 0;
  in >> shell >> sleeper;
  ASSERT_GT(shell, 0);
  ASSERT_GT(sleeper, 0);
  EXPECT_EQ(process_state(shell), 0) << "the script is still there (zombie?)";
  // The orphaned sleep was killed with its process group; whoever adopted it may not have reaped it yet.
  for (int i = 0; i < 200 && process_state(sleeper) != 0 && process_state(sleeper) != 'Z'; ++i)
    std::this_thread::sleep_for(10ms);
  const char s = process_state(sleeper);
  EXPECT_TRUE(s == 0 || s == 'Z' || s == 'X') << "the script's child still runs: state " << s;
  // TearDown: no temp file, no child of ours.
}

TEST_F(VoiceTest, SlowEspeakThatClosedItsOutputStillTimesOut) {
  auto o = options();
  o.timeout = 300ms;
  auto note = synthesize_with("quiet-slow", "exec >/dev/null 2>&1\nsleep 30\n", o);
  ASSERT_TRUE(failed_with(note, ErrorCode::timeout));
}

TEST_F(VoiceTest, FailingEspeakReportsStatusAndStderr) {
  auto note = synthesize_with("fail-espeak", "echo 'Error: the voice data is broken' >&2\nexit 1\n");
  ASSERT_TRUE(failed_with(note, ErrorCode::tool_failed));
  EXPECT_EQ(note.error().message, "espeak-ng failed (exit status 1): Error: the voice data is broken");
}

TEST_F(VoiceTest, KilledEspeakIsReported) {
  auto note = synthesize_with("killed-espeak", "kill -9 $$\n");
  ASSERT_TRUE(failed_with(note, ErrorCode::tool_failed, "signal 9"));
}

TEST_F(VoiceTest, MissingEspeakSaysInstallIt) {
  for (std::string binary : {"/nonexistent/espeak-ng", "sigil-no-such-espeak-ng"}) {
    auto o = options();
    o.espeak_binary = binary;
    auto note = VoiceSynth(o).synthesize("Hello.");
    ASSERT_TRUE(failed_with(note, ErrorCode::tool_missing));
    EXPECT_EQ(note.error().message.rfind("espeak-ng not found: install espeak-ng", 0), 0u)
        << note.error().message;
  }
}

TEST_F(VoiceTest, NotExecutableIsAClearError) {
  const fs::path p = scripts_ / "not-executable";
  std::ofstream(p) << "#!/bin/sh\n";
  auto o = options();
  o.espeak_binary = p.string();
  auto note = VoiceSynth(o).synthesize("Hello.");
  ASSERT_TRUE(failed_with(note, ErrorCode::permission_denied));
}

TEST_F(VoiceTest, GarbageOrEmptyOutputIsRefused) {
  auto garbage = synthesize_with("garbage", "echo 'this is not a wav'\n");
  ASSERT_TRUE(failed_with(garbage, ErrorCode::tool_failed, "not a WAV"));

  EXPECT_EQ(synthesize_with("silent", "exit 0\n").error().code, ErrorCode::tool_failed);

  // A header and no samples.
  auto empty = synthesize_with("header-only",
                               "printf 'RIFF\\044\\0\\0\\0WAVEfmt \\020\\0\\0\\0\\001\\0\\001\\0"
                               "\\042\\126\\0\\0\\104\\254\\0\\0\\002\\0\\020\\0data\\0\\0\\0\\0'\n");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message, "espeak-ng produced no audio");
}

TEST_F(VoiceTest, RunawayOutputIsKilled) {
  auto o = options();
  o.max_wav_bytes = 1 << 20;
  auto note = synthesize_with("runaway", "exec yes\n", o);
  ASSERT_TRUE(failed_with(note, ErrorCode::tool_failed, "wrote more than"));
}

// The text goes on stdin, whole, never on the command line; the arguments are fixed.
TEST_F(VoiceTest, TextGoesOnStdinNeverOnTheCommandLine) {
  const fs::path got_in = base_ / "stdin.txt", got_args = base_ / "args.txt";
  auto o = options();
  o.voice = "en-us";
  o.words_per_minute = 160;
  o.espeak_binary =
      script("recorder", "cat > '" + got_in.string() + "'\nfor a in \"$@\"; do echo \"$a\"; done > '" +
                             got_args.string() + "'\nexit 3\n")
          .string();
  const std::string text = "First line; $(id)\nsecond line `uname` -s 999\n";
  auto note = VoiceSynth(o).synthesize(text);
  ASSERT_FALSE(note.ok());
  EXPECT_EQ(read_file(got_in), text);
  EXPECT_EQ(read_file(got_args), "--stdout\n--stdin\n-b\n1\n-v\nen-us\n-s\n160\n");
}

// A WAV that is not espeak-ng's usual one: 16 kHz, stereo, real sizes, an extra chunk.
TEST_F(VoiceTest, OtherWavShapesAreConverted) {
  const int rate = 16000, frames = rate;  // one second
  std::string data;
  for (int i = 0; i < frames; ++i) {
    const auto v = static_cast<std::int16_t>(8000 * std::sin(2 * std::numbers::pi * 440 * i / rate));
    for (int c = 0; c < 2; ++c) {
      data.push_back(static_cast<char>(v & 0xff));
      data.push_back(static_cast<char>((v >> 8) & 0xff));
    }
  }
  auto u32 = [](std::uint32_t v) {
    return std::string{static_cast<char>(v), static_cast<char>(v >> 8), static_cast<char>(v >> 16),
                       static_cast<char>(v >> 24)};
  };
  auto u16 = [](std::uint16_t v) { return std::string{static_cast<char>(v), static_cast<char>(v >> 8)}; };
  std::string wav = "RIFF" + u32(0) + "WAVE";
  wav += "LIST" + u32(3) + "abc" + std::string(1, '\0');  // odd size: padded
  wav += "fmt " + u32(16) + u16(1) + u16(2) + u32(rate) + u32(rate * 4) + u16(4) + u16(16);
  wav += "data" + u32(static_cast<std::uint32_t>(data.size())) + data;
  const fs::path wav_file = base_ / "in.wav";
  std::ofstream(wav_file, std::ios::binary) << wav;

  auto note = synthesize_with("wav-cat", "cat >/dev/null\ncat '" + wav_file.string() + "'\n");
  ASSERT_TRUE(note.ok()) << note.error().message;
  EXPECT_EQ(note->duration(), 1000ms);
  const auto info = opusinfo(note->path());
  EXPECT_EQ(info.exit_code, 0);
  EXPECT_NE(info.output.find("Channels: 1"), std::string::npos) << info.output;
}

TEST_F(VoiceTest, UnwritableTempFolderIsAnErrorWithNothingLeft) {
  auto o = options();
  o.temp_dir = base_ / "does-not-exist";
  auto note = VoiceSynth(o).synthesize("Hello.");
  ASSERT_TRUE(failed_with(note, ErrorCode::io, "cannot create a file"));
}

// ---------------------------------------------------------------- the resampler

double rms_error_vs_sine(const std::vector<float>& y, double freq, double rate, double amp,
                         std::size_t skip) {
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t i = skip; i + skip < y.size(); ++i, ++n) {
    const double want = amp * std::sin(2 * std::numbers::pi * freq * static_cast<double>(i) / rate);
    sum += (y[i] - want) * (y[i] - want);
  }
  return std::sqrt(sum / static_cast<double>(n));
}

TEST(VoiceResample, SinesSurviveUpAndDownSampling) {
  struct Case {
    int in, out;
    double freq;
  };
  for (const Case c : {Case{22050, 48000, 1000}, Case{22050, 48000, 7000}, Case{16000, 48000, 3000},
                       Case{44100, 48000, 10000}, Case{48000, 22050, 2000}, Case{8000, 48000, 300}}) {
    SCOPED_TRACE(std::to_string(c.in) + " -> " + std::to_string(c.out) + " @ " + std::to_string(c.freq));
    std::vector<float> x(static_cast<std::size_t>(c.in) / 2);
    for (std::size_t i = 0; i < x.size(); ++i)
      x[i] =
          static_cast<float>(0.5 * std::sin(2 * std::numbers::pi * c.freq * static_cast<double>(i) / c.in));
    auto y = detail::resample(x, c.in, c.out);
    ASSERT_TRUE(y.has_value());
    const auto expected = (static_cast<std::uint64_t>(x.size()) * c.out + c.in - 1) / c.in;
    EXPECT_EQ(y->size(), expected);
    EXPECT_LT(rms_error_vs_sine(*y, c.freq, c.out, 0.5, 200), 0.005);
  }
}

TEST(VoiceResample, DcStaysDcAndImagesAreSuppressed) {
  std::vector<float> dc(22050, 0.25f);
  auto y = detail::resample(dc, 22050, 48000);
  ASSERT_TRUE(y.has_value());
  for (std::size_t i = 100; i + 100 < y->size(); ++i) ASSERT_NEAR((*y)[i], 0.25f, 1e-4f) << i;

  // An 8 kHz tone at 22050 Hz has its first image at 14050 Hz; after upsampling the output must hold the
  // tone only: compare against the ideal 8 kHz sine at 48 kHz (an image would add an error of its size).
  std::vector<float> tone(22050);
  for (std::size_t i = 0; i < tone.size(); ++i)
    tone[i] =
        static_cast<float>(0.5 * std::sin(2 * std::numbers::pi * 8000 * static_cast<double>(i) / 22050));
  auto up = detail::resample(tone, 22050, 48000);
  ASSERT_TRUE(up.has_value());
  EXPECT_LT(rms_error_vs_sine(*up, 8000, 48000, 0.5, 200), 0.01);
}

TEST(VoiceResample, RefusesRatesItCannotTable) {
  std::vector<float> x(100, 0.0f);
  EXPECT_FALSE(detail::resample(x, 0, 48000).has_value());
  EXPECT_FALSE(detail::resample(x, 22051, 48000).has_value());  // L = 48000: too many phases
  EXPECT_TRUE(detail::resample(x, 48000, 48000).has_value());
  EXPECT_TRUE(detail::resample({}, 22050, 48000).value().empty());
}

}  // namespace
}  // namespace sigil::actions
