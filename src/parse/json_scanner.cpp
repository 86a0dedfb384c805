#include "sigil/parse/json_scanner.h"

#include "sigil/text/ascii.h"

namespace sigil::parse {

namespace {

using text::ascii::is_alpha;
using text::ascii::is_digit;
using text::ascii::is_markup_space;

// Bytes that continue an unquoted key, a number or a literal. Deliberately a superset of each: the scanner
// only needs to know where the token ends, parse_lenient judges it.
bool is_bare(unsigned char b) {
  return is_alpha(b) || is_digit(b) || b == '_' || b == '$' || b == '-' || b == '+' || b == '.';
}

constexpr unsigned char kUtf8Lead = 0xE2;  // U+2018, U+2019, U+201C, U+201D are E2 80 xx
constexpr unsigned char kUtf8Mid = 0x80;
constexpr unsigned char kLeftSingle = 0x98;   // ‘
constexpr unsigned char kRightSingle = 0x99;  // ’
constexpr unsigned char kLeftDouble = 0x9C;   // “
constexpr unsigned char kRightDouble = 0x9D;  // ”

}  // namespace

bool JsonScanner::innermost_is_object() const {
  if (depth_ <= 0 || depth_ > kMaxDepth) return false;
  int level = depth_ - 1;
  return (kinds_[level / 64] >> (level % 64)) & 1u;
}

void JsonScanner::push(bool object) {
  if (depth_ >= kMaxDepth) {
    failed_ = true;
    ++overflow_;
    ++depth_;
    return;
  }
  int level = depth_;
  std::uint64_t bit = std::uint64_t{1} << (level % 64);
  if (object)
    kinds_[level / 64] |= bit;
  else
    kinds_[level / 64] &= ~bit;
  ++depth_;
  expect_ = object ? Expect::ObjKey : Expect::ArrValue;
}

void JsonScanner::pop() {
  --depth_;
  if (overflow_ > 0) {
    --overflow_;
    return;
  }
  if (depth_ == 0)
    expect_ = Expect::Top;
  else
    expect_ = innermost_is_object() ? Expect::ObjNext : Expect::ArrNext;
}

void JsonScanner::token_done() {
  switch (expect_) {
    case Expect::ObjKey:
      expect_ = Expect::ObjColon;
      break;
    case Expect::ObjColon:
    case Expect::ObjValue:
    case Expect::ObjNext:
      expect_ = Expect::ObjNext;
      break;
    case Expect::ArrValue:
    case Expect::ArrNext:
      expect_ = Expect::ArrNext;
      break;
    case Expect::Top:
      break;
  }
}

void JsonScanner::open_string(Quote q) {
  lex_ = Lex::String;
  quote_ = q;
  escape_ = false;
  curly_match_ = 0;
  string_on_line_ = true;
}

JsonScanner::Step JsonScanner::structural(unsigned char b) {
  if (depth_ == 0) {
    if (is_markup_space(b)) return Step::Continue;
    if (b == ',' && closed_values_ > 0) return Step::Continue;
    if (b == '{' || b == '[') {
      push(b == '{');
      return Step::ValueStart;
    }
    return Step::Stray;
  }
  if (is_markup_space(b)) return Step::Continue;
  switch (b) {
    case '{':
    case '[': {
      bool was_failed = failed_;
      push(b == '{');
      return failed_ && !was_failed ? Step::Error : Step::Continue;
    }
    case '}':
    case ']': {
      bool mismatch = depth_ <= kMaxDepth && innermost_is_object() != (b == '}');
      pop();
      bool newly_failed = mismatch && !failed_;
      if (mismatch) failed_ = true;
      if (depth_ == 0) {
        ++closed_values_;
        return Step::ValueEnd;
      }
      return newly_failed ? Step::Error : Step::Continue;
    }
    case '"':
      open_string(Quote::Double);
      return Step::Continue;
    case '\'':
      open_string(Quote::Single);
      return Step::Continue;
    case kUtf8Lead:
      lex_ = Lex::CurlyLead;
      return Step::Continue;
    case '/':
      lex_ = Lex::Slash;
      return Step::Continue;
    case ':':
      if (innermost_is_object()) expect_ = Expect::ObjValue;
      return Step::Continue;
    case ',':
      if (depth_ <= kMaxDepth) expect_ = innermost_is_object() ? Expect::ObjKey : Expect::ArrValue;
      return Step::Continue;
    default:
      if (is_bare(b)) lex_ = Lex::Bare;
      // Any other byte is junk the reader will reject; it changes nothing here.
      return Step::Continue;
  }
}

JsonScanner::Step JsonScanner::step(unsigned char b) {
  switch (lex_) {
    case Lex::String: {
      if (escape_) {
        escape_ = false;
        if (b == '\n') string_on_line_ = false;
        return Step::Continue;
      }
      if (b == '\\') {
        escape_ = true;
        curly_match_ = 0;
        return Step::Continue;
      }
      if (b == '\n') {
        string_on_line_ = false;
        curly_match_ = 0;
        return Step::Continue;
      }
      bool closes = false;
      switch (quote_) {
        case Quote::Double:
          closes = b == '"';
          break;
        case Quote::Single:
          closes = b == '\'';
          break;
        case Quote::CurlyDouble:
        case Quote::CurlySingle: {
          unsigned char closer = quote_ == Quote::CurlyDouble ? kRightDouble : kRightSingle;
          if (b == kUtf8Lead)
            curly_match_ = 1;
          else if (curly_match_ == 1 && b == kUtf8Mid)
            curly_match_ = 2;
          else if (curly_match_ == 2 && b == closer)
            closes = true;
          else
            curly_match_ = 0;
          break;
        }
        case Quote::None:
          break;
      }
      if (closes) {
        quote_ = Quote::None;
        lex_ = Lex::Normal;
        curly_match_ = 0;
        token_done();
      }
      return Step::Continue;
    }
    case Lex::Bare:
      if (is_bare(b)) return Step::Continue;
      lex_ = Lex::Normal;
      token_done();
      return structural(b);
    case Lex::Slash:
      if (b == '/') {
        lex_ = Lex::LineComment;
        return Step::Continue;
      }
      if (b == '*') {
        lex_ = Lex::BlockComment;
        return Step::Continue;
      }
      lex_ = Lex::Normal;
      return structural(b);
    case Lex::LineComment:
      if (b == '\n') lex_ = Lex::Normal;
      return Step::Continue;
    case Lex::BlockComment:
      if (b == '*') lex_ = Lex::BlockStar;
      return Step::Continue;
    case Lex::BlockStar:
      if (b == '/')
        lex_ = Lex::Normal;
      else if (b != '*')
        lex_ = Lex::BlockComment;
      return Step::Continue;
    case Lex::CurlyLead:
      if (b == kUtf8Mid) {
        lex_ = Lex::CurlyLead2;
        return Step::Continue;
      }
      lex_ = Lex::Normal;
      return structural(b);
    case Lex::CurlyLead2:
      if (b == kLeftDouble || b == kRightDouble) {
        open_string(Quote::CurlyDouble);
        return Step::Continue;
      }
      if (b == kLeftSingle || b == kRightSingle) {
        open_string(Quote::CurlySingle);
        return Step::Continue;
      }
      lex_ = Lex::Normal;
      return structural(b);
    case Lex::Normal:
      break;
  }
  return structural(b);
}

std::size_t JsonScanner::skip_string_bytes(std::string_view bytes) {
  if (lex_ != Lex::String || escape_ || curly_match_ != 0) return 0;
  unsigned char quote_byte = 0;  // 0: a curly string, which stops at every 0xE2 instead
  if (quote_ == Quote::Double) quote_byte = '"';
  if (quote_ == Quote::Single) quote_byte = '\'';
  bool stop_at_lt = !close_tag_is_content();
  std::size_t i = 0;
  for (; i < bytes.size(); ++i) {
    auto b = static_cast<unsigned char>(bytes[i]);
    if (b == '\\' || b == '\n') break;
    if (quote_byte != 0 ? b == quote_byte : b == kUtf8Lead) break;
    if (b == '<' && stop_at_lt) break;
  }
  return i;
}

bool JsonScanner::line_start_acceptable(unsigned char b) const {
  switch (lex_) {
    case Lex::String:
    case Lex::BlockComment:
    case Lex::BlockStar:
    case Lex::LineComment:
      return true;
    default:
      break;
  }
  if (depth_ == 0) return b == '{' || b == '[' || b == ',';
  if (b == '/') return true;
  if (depth_ > kMaxDepth) {
    if (b == '}' || b == ']') return true;
  } else if (b == (innermost_is_object() ? '}' : ']')) {
    return true;
  }
  bool quote = b == '"' || b == '\'' || b == kUtf8Lead;
  switch (expect_) {
    case Expect::ObjKey:
      return quote || is_alpha(b) || b == '_' || b == '$';
    case Expect::ObjColon:
      return b == ':';
    case Expect::ObjValue:
    case Expect::ArrValue:
      return quote || b == '{' || b == '[' || is_digit(b) || b == '-' || b == 't' || b == 'f' || b == 'n' ||
             b == 'T' || b == 'F' || b == 'N';
    case Expect::ObjNext:
    case Expect::ArrNext:
      return b == ',';
    case Expect::Top:
      return b == '{' || b == '[' || b == ',';
  }
  return false;
}

}  // namespace sigil::parse
