#pragma once

// The names of an enumeration's values as one table beside the enum, instead of a switch per enum.
//
//   inline constexpr text::EnumNames<Colour::blue> kColourNames{{"red", "green", "blue"}, "red"};
//   std::string_view to_string(Colour c) { return kColourNames.name(c); }
//
// The table is indexed by the enumerator's value, so the enumerators must run 0, 1, 2, ... without gaps
// (an enum without initialisers does). The template argument is the enum's last enumerator: a table that
// names one value too few or too many does not compile, nor does one with an empty or a repeated name.
// Whoever appends an enumerator moves the template argument to it, and the table must follow.

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

namespace sigil::text {

template <auto Last>
requires std::is_enum_v<decltype(Last)>
class EnumNames {
 public:
  using Enum = decltype(Last);
  static constexpr std::size_t kCount = static_cast<std::size_t>(Last) + 1;

  // `names[i]` names the enumerator whose value is i; `otherwise` is what name() says for a value outside
  // the enum (a cast from a stray integer), so every caller keeps the answer its switch used to give.
  template <std::size_t N>
  consteval EnumNames(const std::string_view (&names)[N], std::string_view otherwise)
      : otherwise_(otherwise) {
    static_assert(N == kCount, "the table must name every enumerator, from the first to Last");
    for (std::size_t i = 0; i < N; ++i) {
      // A throw is not a constant expression, so an empty or repeated name fails the build.
      if (names[i].empty()) throw "an enumerator's name is empty";
      for (std::size_t j = 0; j < i; ++j)
        if (names[j] == names[i]) throw "two enumerators share a name";
      names_[i] = names[i];
    }
  }

  constexpr std::string_view name(Enum value) const noexcept {
    const auto i = static_cast<std::size_t>(value);
    return i < kCount ? names_[i] : otherwise_;
  }

  // The enumerator this exact name (case and all) names; nullopt for any other text.
  constexpr std::optional<Enum> parse(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < kCount; ++i)
      if (names_[i] == name) return static_cast<Enum>(i);
    return std::nullopt;
  }

 private:
  std::array<std::string_view, kCount> names_{};
  std::string_view otherwise_;
};

}  // namespace sigil::text
