#include "channels/markdown_walk.h"

#include <algorithm>
#include <utility>

#include "sigil/text/ascii.h"
#include "sigil/text/char_refs.h"

namespace sigil::channels {

bool MarkdownWalk::walk(std::string_view markdown) {
  MD_PARSER parser{};
  parser.abi_version = 0;
  parser.flags = MD_FLAG_NOHTML | MD_FLAG_STRIKETHROUGH | MD_FLAG_TABLES | MD_FLAG_PERMISSIVEAUTOLINKS;
  parser.enter_block = [](MD_BLOCKTYPE t, void* d, void* self) {
    return static_cast<MarkdownWalk*>(self)->enter_block(t, d);
  };
  parser.leave_block = [](MD_BLOCKTYPE t, void* /*detail*/, void* self) {
    return static_cast<MarkdownWalk*>(self)->leave_block(t);
  };
  parser.enter_span = [](MD_SPANTYPE t, void* d, void* self) {
    return static_cast<MarkdownWalk*>(self)->walk_enter_span(t, d);
  };
  parser.leave_span = [](MD_SPANTYPE t, void* /*detail*/, void* self) {
    return static_cast<MarkdownWalk*>(self)->walk_leave_span(t);
  };
  parser.text = [](MD_TEXTTYPE t, const MD_CHAR* s, MD_SIZE n, void* self) {
    return static_cast<MarkdownWalk*>(self)->walk_text(t, std::string_view(s, n));
  };
  return md_parse(markdown.data(), static_cast<MD_SIZE>(markdown.size()), &parser, this) == 0;
}

int MarkdownWalk::enter_block(MD_BLOCKTYPE type, void* detail) {
  switch (type) {
    case MD_BLOCK_DOC:
    case MD_BLOCK_THEAD:
    case MD_BLOCK_TBODY:
      break;
    case MD_BLOCK_QUOTE:
      begin_block();
      enter_quote();
      fresh_ = true;
      break;
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
      enter_list(type, detail);
      break;
    case MD_BLOCK_LI:
      begin_block();
      out_ += item_marker(marks_.bullet);
      fresh_ = true;
      break;
    case MD_BLOCK_HR:
      begin_block();
      out_ += "———";
      break;
    case MD_BLOCK_H:
      begin_block();
      enter_heading(static_cast<const MD_BLOCK_H_DETAIL*>(detail)->level);
      break;
    case MD_BLOCK_CODE: {
      begin_block();
      std::string lang = attribute(static_cast<const MD_BLOCK_CODE_DETAIL*>(detail)->lang);
      // The chats read the info string up to the line end: only a plain word is kept.
      if (!plain_info_word(lang)) lang.clear();
      enter_code(lang);
      break;
    }
    case MD_BLOCK_HTML:
    case MD_BLOCK_P:
      begin_block();
      break;
    case MD_BLOCK_TABLE:
      begin_block();
      enter_table();
      break;
    case MD_BLOCK_TR:
      if (table_row()) line_break();
      break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
      if (table_cell()) out_ += " | ";
      if (type == MD_BLOCK_TH) out_ += marks_.bold_open;
      break;
  }
  return 0;
}

int MarkdownWalk::leave_block(MD_BLOCKTYPE type) {
  close_spans();
  switch (type) {
    case MD_BLOCK_QUOTE:
      leave_quote();
      pending_ = 2;
      break;
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
      leave_list();
      break;
    case MD_BLOCK_LI:
      leave_item();
      break;
    case MD_BLOCK_H:
      leave_heading();
      pending_ = 2;
      break;
    case MD_BLOCK_CODE:
      leave_code();
      pending_ = 2;
      break;
    case MD_BLOCK_TH:
      out_ += marks_.bold_close;
      break;
    case MD_BLOCK_HR:
    case MD_BLOCK_HTML:
    case MD_BLOCK_P:
    case MD_BLOCK_TABLE:
      leave_leaf(type);
      break;
    default:
      break;
  }
  return 0;
}

void MarkdownWalk::begin_block() {
  close_spans();
  if (pending_ > 0 && !out_.empty() && !fresh_)
    for (int i = 0; i < pending_; ++i) line_break();
  pending_ = 0;
  fresh_ = false;
}

void MarkdownWalk::enter_list(MD_BLOCKTYPE type, void* detail) {
  if (!lists_.empty()) pending_ = 1;  // a nested list starts on the next line of its item
  List l;
  l.ordered = type == MD_BLOCK_OL;
  if (l.ordered) {
    const auto* d = static_cast<const MD_BLOCK_OL_DETAIL*>(detail);
    l.next = d->start;
    l.tight = d->is_tight != 0;
  } else {
    l.tight = static_cast<const MD_BLOCK_UL_DETAIL*>(detail)->is_tight != 0;
  }
  lists_.push_back(l);
}

void MarkdownWalk::leave_list() {
  lists_.pop_back();
  pending_ = lists_.empty() ? 2 : 1;
}

std::string MarkdownWalk::item_marker(std::string_view bullet) {
  List& l = lists_.back();
  return std::string(2 * (lists_.size() - 1), ' ') +
         (l.ordered ? std::to_string(l.next++) + ". " : std::string(bullet));
}

bool MarkdownWalk::table_row() {
  first_cell_ = true;
  return !std::exchange(first_row_, false);
}

bool MarkdownWalk::table_cell() { return !std::exchange(first_cell_, false); }

int MarkdownWalk::walk_enter_span(MD_SPANTYPE type, void* detail) {
  fresh_ = false;
  if (enter_image(type, detail)) return 0;  // an image's alt text is shown plain
  return enter_span(type, detail);
}

int MarkdownWalk::walk_leave_span(MD_SPANTYPE type) {
  if (std::string src; leave_image(type, src)) {
    if (!src.empty()) out_ += " (" + shown_src(std::move(src)) + ")";
    return 0;
  }
  return leave_span(type);
}

int MarkdownWalk::walk_text(MD_TEXTTYPE type, std::string_view s) {
  fresh_ = false;  // the container's first content is written: the next block is separated from it
  if (type == MD_TEXT_NULLCHAR) {
    after_nullchar_ = true;
    return text(type, kReplacementChar);
  }
  // md4c (0.4.8) gives the text after a MD_TEXT_NULLCHAR from the NUL it reported on (a code block's "c\0d"
  // comes as "c", NULLCHAR, "\0d"), and passes a code span's NULs on raw without reporting them.
  if (after_nullchar_ && !s.empty() && s.front() == '\0') s.remove_prefix(1);
  after_nullchar_ = false;
  if (s.empty()) return 0;
  if (s.find('\0') == std::string_view::npos) return text(type, s);
  return text(type, nuls_replaced(s));
}

std::string nuls_replaced(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    if (c == '\0')
      out += kReplacementChar;
    else
      out += c;
  }
  return out;
}

bool MarkdownWalk::enter_image(MD_SPANTYPE type, void* detail) {
  if (image_depth_ > 0) {
    if (type == MD_SPAN_IMG) ++image_depth_;
    return true;
  }
  if (type != MD_SPAN_IMG) return false;
  image_src_ = attribute(static_cast<const MD_SPAN_IMG_DETAIL*>(detail)->src);
  image_depth_ = 1;
  return true;
}

bool MarkdownWalk::leave_image(MD_SPANTYPE type, std::string& src) {
  src.clear();
  if (image_depth_ == 0) return false;
  if (type == MD_SPAN_IMG && --image_depth_ == 0) src = std::move(image_src_);
  return true;
}

bool MarkdownWalk::plain_info_word(std::string_view info) {
  return std::all_of(info.begin(), info.end(), [](char c) {
    return text::ascii::is_alnum(c) || c == '-' || c == '_' || c == '+' || c == '#';
  });
}

std::string MarkdownWalk::trimmed() {
  while (!out_.empty() && (out_.back() == '\n' || out_.back() == ' ')) out_.pop_back();
  return std::move(out_);
}

std::string attribute(const MD_ATTRIBUTE& a) {
  std::string out;
  if (a.size == 0) return out;  // md4c leaves an empty attribute's pieces unset
  out.reserve(a.size);
  for (int i = 0; a.substr_offsets[i] < a.size; ++i) {
    const std::string_view piece(a.text + a.substr_offsets[i], a.substr_offsets[i + 1] - a.substr_offsets[i]);
    if (a.substr_types[i] == MD_TEXT_NULLCHAR)
      out += kReplacementChar;
    else if (a.substr_types[i] != MD_TEXT_ENTITY || !text::decode_char_ref(piece, out))
      out += piece;  // an unknown reference stays as written, as in the text
  }
  return out;
}

}  // namespace sigil::channels
