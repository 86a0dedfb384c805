#include <charconv>
#include <string>

#include "sigil/store/once_keys.h"
#include "sigil/store/sha256.h"
#include "sigil/store/store.h"

namespace sigil::store {
namespace {

// "<length>:<bytes>;" so that field boundaries cannot be forged by the fields' contents.
void field(Sha256& h, std::string_view bytes) {
  char length[24];
  const auto end = std::to_chars(length, length + sizeof length - 1, bytes.size()).ptr;
  *end = ':';
  h.update(std::string_view(length, static_cast<std::size_t>(end - length) + 1));
  h.update(bytes);
  h.update(";");
}

void number_field(Sha256& h, std::uint32_t n) {
  char digits[16];
  const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  field(h, std::string_view(digits, static_cast<std::size_t>(end - digits)));
}

}  // namespace

OnceKeys::OnceKeys(std::string_view conversation_id, std::string_view turn_id) noexcept {
  field(prefix_, "sigil-once-v1");  // a version, should the encoding ever change
  field(prefix_, conversation_id);
  field(prefix_, turn_id);
}

std::string OnceKeys::key(std::uint32_t ordinal, std::string_view action,
                          std::string_view normalized_args_json) const {
  Sha256 h = prefix_;
  number_field(h, ordinal);
  field(h, action);
  field(h, normalized_args_json);
  return to_hex(h.finish());
}

std::string once_key(std::string_view conversation_id, std::string_view turn_id, std::uint32_t ordinal,
                     std::string_view action, std::string_view normalized_args_json) {
  return OnceKeys(conversation_id, turn_id).key(ordinal, action, normalized_args_json);
}

}  // namespace sigil::store
