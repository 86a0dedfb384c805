#include "sigil/deliver/delivery.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "sigil/text/enum_names.h"

namespace sigil::deliver {

Payload::~Payload() = default;

namespace {

class BytesPayload final : public Payload {
 public:
  BytesPayload(std::string bytes, std::string name, std::string mime)
      : bytes_(std::move(bytes)), name_(std::move(name)), mime_(std::move(mime)) {}
  std::uint64_t size() const override { return bytes_.size(); }
  std::string name() const override { return name_; }
  std::string mime_type() const override { return mime_; }
  std::int64_t read_at(std::uint64_t offset, std::span<char> out) const override {
    if (offset >= bytes_.size()) return 0;
    const std::size_t n = std::min<std::size_t>(out.size(), bytes_.size() - offset);
    std::memcpy(out.data(), bytes_.data() + offset, n);
    return static_cast<std::int64_t>(n);
  }

 private:
  std::string bytes_, name_, mime_;
};

}  // namespace

std::shared_ptr<const Payload> make_bytes_payload(std::string bytes, std::string name,
                                                  std::string mime_type) {
  return std::make_shared<BytesPayload>(std::move(bytes), std::move(name), std::move(mime_type));
}

bool read_payload(const Payload& payload, std::string& out, std::string& error) {
  out.clear();
  out.reserve(static_cast<std::size_t>(payload.size()));
  char buffer[64 * 1024];
  for (std::uint64_t offset = 0;;) {
    const std::int64_t n = payload.read_at(offset, std::span<char>(buffer, sizeof buffer));
    if (n < 0) {
      error = "cannot read the file's bytes";
      return false;
    }
    if (n == 0) return true;
    out.append(buffer, static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
}

namespace {
constexpr text::EnumNames<Delivery::Op::Message> kOpNames{{"text", "file", "voice", "reaction", "message"},
                                                          "unknown"};
}  // namespace

std::string_view to_string(Delivery::Op op) { return kOpNames.name(op); }

}  // namespace sigil::deliver
