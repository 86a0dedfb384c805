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
  parser.leave_block = [](MD_BLOCKTYPE t, void* d, void* self) {
    return static_cast<MarkdownWalk*>(self)->leave_block(t, d);
  };
  parser.enter_span = [](MD_SPANTYPE t, void* d, void* self) {
    return static_cast<MarkdownWalk*>(self)->enter_span(t, d);
  };
  parser.leave_span = [](MD_SPANTYPE t, void* d, void* self) {
    return static_cast<MarkdownWalk*>(self)->leave_span(t, d);
  };
  parser.text = [](MD_TEXTTYPE t, const MD_CHAR* s, MD_SIZE n, void* self) {
    return static_cast<MarkdownWalk*>(self)->text(t, std::string_view(s, n));
  };
  return md_parse(markdown.data(), static_cast<MD_SIZE>(markdown.size()), &parser, this) == 0;
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
      out += "\xEF\xBF\xBD";
    else if (a.substr_types[i] != MD_TEXT_ENTITY || !text::decode_char_ref(piece, out))
      out += piece;  // an unknown reference stays as written, as in the text
  }
  return out;
}

}  // namespace sigil::channels
