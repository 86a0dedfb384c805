#include "sigil/net/retry_after.h"

#include <array>
#include <charconv>
#include <cstdint>

#include "sigil/text/ascii.h"

namespace sigil::net {

namespace {

using namespace std::chrono;

// Reads exactly `digits` digits (or 1..digits when `exact` is false) into `out`.
bool take_number(std::string_view& s, std::size_t digits, bool exact, int& out) {
  std::size_t n = 0;
  while (n < s.size() && n < digits && text::ascii::is_digit(s[n])) ++n;
  if (n == 0 || (exact && n != digits)) return false;
  std::from_chars(s.data(), s.data() + n, out);
  s.remove_prefix(n);
  return true;
}

bool take_literal(std::string_view& s, std::string_view literal) {
  if (s.substr(0, literal.size()) != literal) return false;
  s.remove_prefix(literal.size());
  return true;
}

bool take_month(std::string_view& s, int& month) {
  static constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (std::size_t i = 0; i < kMonths.size(); ++i) {
    if (take_literal(s, kMonths[i])) {
      month = static_cast<int>(i) + 1;
      return true;
    }
  }
  return false;
}

bool take_time(std::string_view& s, int& h, int& m, int& sec) {
  return take_number(s, 2, true, h) && take_literal(s, ":") && take_number(s, 2, true, m) &&
         take_literal(s, ":") && take_number(s, 2, true, sec) && h < 24 && m < 60 && sec <= 60;
}

// Skips "Sun, " / "Sunday, " / "Sun ": the weekday carries no information we need.
bool skip_weekday(std::string_view& s, char separator) {
  std::size_t n = 0;
  while (n < s.size() && text::ascii::is_alpha(s[n])) ++n;
  if (n < 3 || n >= s.size() || s[n] != separator) return false;
  s.remove_prefix(n + 1);
  return true;
}

std::optional<system_clock::time_point> make_time(int year, int month, int day, int h, int m, int sec) {
  year_month_day date{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
                      std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok()) return std::nullopt;
  return sys_days(date) + hours(h) + minutes(m) + seconds(sec);
}

std::optional<system_clock::time_point> parse_http_date(std::string_view s) {
  int day = 0, month = 0, year = 0, h = 0, m = 0, sec = 0;
  std::string_view rest = s;
  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
  if (skip_weekday(rest, ',') && take_literal(rest, " ")) {
    std::string_view imf = rest;
    if (take_number(imf, 2, true, day) && take_literal(imf, " ") && take_month(imf, month) &&
        take_literal(imf, " ") && take_number(imf, 4, true, year) && take_literal(imf, " ") &&
        take_time(imf, h, m, sec) && imf == " GMT") {
      return make_time(year, month, day, h, m, sec);
    }
    // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT. RFC 9110 reads a two-digit year as the century that puts
    // the date at most 50 years ahead; until 2050 that is always 20yy.
    std::string_view rfc850 = rest;
    if (take_number(rfc850, 2, true, day) && take_literal(rfc850, "-") && take_month(rfc850, month) &&
        take_literal(rfc850, "-") && take_number(rfc850, 2, true, year) && take_literal(rfc850, " ") &&
        take_time(rfc850, h, m, sec) && rfc850 == " GMT") {
      return make_time(2000 + year, month, day, h, m, sec);
    }
    return std::nullopt;
  }
  // asctime: Sun Nov  6 08:49:37 1994
  rest = s;
  if (skip_weekday(rest, ' ') && take_month(rest, month) && take_literal(rest, " ")) {
    if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (take_number(rest, 2, false, day) && take_literal(rest, " ") && take_time(rest, h, m, sec) &&
        take_literal(rest, " ") && take_number(rest, 4, true, year) && rest.empty()) {
      return make_time(year, month, day, h, m, sec);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<seconds> parse_retry_after(std::string_view value, system_clock::time_point now) {
  value = text::ascii::trim(value, text::ascii::is_blank);  // HTTP's optional whitespace
  if (value.empty()) return std::nullopt;
  if (text::ascii::is_digit(value.front())) {
    std::uint32_t n = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end != value.data() + value.size()) return std::nullopt;
    return seconds(n);
  }
  auto at = parse_http_date(value);
  if (!at) return std::nullopt;
  if (*at <= now) return seconds(0);
  // Round up: waiting a fraction too long is harmless, too short earns another 429.
  return ceil<seconds>(*at - now);
}

}  // namespace sigil::net
