#include "sigil/actions/voice_action.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "sigil/actions/file_sandbox.h"
#include "sigil/actions/unique_fd.h"
#include "sigil/store/sha256.h"

namespace sigil::actions {
namespace {

// Owns the note (its file is deleted with the last holder) and reads it through one descriptor opened
// right after synthesis.
class VoicePayload final : public exec::Payload {
 public:
  VoicePayload(VoiceNote note, UniqueFd fd) : note_(std::move(note)), fd_(std::move(fd)) {}
  std::uint64_t size() const override { return note_.bytes(); }
  std::string name() const override { return "voice.ogg"; }
  std::string mime_type() const override { return std::string(VoiceNote::kMimeType); }
  std::int64_t read_at(std::uint64_t offset, std::span<char> out) const override {
    for (;;) {
      const ssize_t n = ::pread(fd_.get(), out.data(), out.size(), static_cast<off_t>(offset));
      if (n >= 0 || errno != EINTR) return n;
    }
  }

 private:
  VoiceNote note_;
  UniqueFd fd_;
};

exec::HandlerResult speak(const VoiceConfig& config, const exec::Directive& d,
                          const exec::ActionContext& ctx) {
  if (!config.synth) return exec::HandlerResult::error("voice: voice notes are not configured");
  const auto* text = d.args.if_contains("text");
  const std::string_view words =
      text != nullptr && text->is_string() ? std::string_view(text->get_string()) : "";
  // Text the synthesizer would refuse is refused here, before it is charged to the budget.
  if (auto ok = config.synth->check_text(words); !ok)
    return exec::HandlerResult::error("voice: " + ok.error().message);
  if (config.budget) {
    if (auto over = config.budget->charge(ctx.ids(), VoiceBudget::characters(words), ctx.now()))
      return exec::HandlerResult::error("voice: " + *over);
  }
  auto note = config.synth->synthesize(words);
  if (!note) return exec::HandlerResult::error("voice: " + note.error().message);

  UniqueFd fd(::open(note->path().c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd)
    return exec::HandlerResult::error("voice: cannot read the voice note: " + std::string(strerror(errno)));
  std::string bytes(note->bytes(), '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::pread(fd.get(), bytes.data() + got, bytes.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return exec::HandlerResult::error("voice: cannot read the voice note");
    got += static_cast<std::size_t>(n);
  }

  exec::Delivery delivery;
  delivery.op = exec::Delivery::Op::Voice;
  delivery.path = note->path().string();
  delivery.sha256 = store::sha256_hex(bytes);
  delivery.duration_ms = static_cast<std::uint64_t>(note->duration().count());
  boost::json::object result{{"duration_ms", delivery.duration_ms}, {"bytes", note->bytes()}};
  const std::string message =
      fmt::format("sent a voice note ({:.1f} s)", static_cast<double>(delivery.duration_ms) / 1000.0);
  delivery.payload = std::make_shared<VoicePayload>(std::move(*note), std::move(fd));
  auto r = exec::HandlerResult::ok(message, std::move(result));
  r.deliveries.push_back(std::move(delivery));
  return r;
}

}  // namespace

void add_voice_handlers(exec::HandlerTable& table, VoiceConfig config) {
  auto shared = std::make_shared<const VoiceConfig>(std::move(config));
  table.add("voice",
            [shared](const exec::Directive& d, exec::ActionContext& ctx) { return speak(*shared, d, ctx); });
}

}  // namespace sigil::actions
