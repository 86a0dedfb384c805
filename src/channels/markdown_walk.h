// What the chat platforms' Markdown renderers (telegram_html, discord_markdown) share: md4c's syntax tree
// walked with one set of options, and the bookkeeping of lists and of the blank lines owed between blocks.
//
// What it promises:
// - walk() parses CommonMark with GitHub's strikethrough, tables and permissive autolinks, raw HTML as text
//   (a renderer never passes the model's HTML on), calling the five hooks in document order; false only when
//   md4c gave up (memory exhaustion).
// - Lists: enter_list()/leave_list() keep the open lists (ordered or not, their next number, tight or
//   loose); item_marker() is the next item's "N. " or the bullet given; block_gap() is the line breaks
//   owed after a block: one inside a tight list, else two; leave_item() and leave_leaf() owe them.
// - Tables: table_row()/table_cell() say whether a row or cell separator is owed before the next one.
// - Images show as their alt text, then " (src)": enter_image()/leave_image() keep nested images' depth and
//   say when a span is inside one (the renderer writes no markup for it).
// - plain_info_word(): a code block's info string a chat keeps as its language (one plain word).
// - trimmed(): out_ without the trailing line breaks and spaces the last block left.
#pragma once

#include <md4c.h>

#include <string>
#include <string_view>
#include <vector>

namespace sigil::channels {

class MarkdownWalk {
 public:
  virtual ~MarkdownWalk() = default;

 protected:
  bool walk(std::string_view markdown);

  virtual int enter_block(MD_BLOCKTYPE type, void* detail) = 0;
  virtual int leave_block(MD_BLOCKTYPE type, void* detail) = 0;
  virtual int enter_span(MD_SPANTYPE type, void* detail) = 0;
  virtual int leave_span(MD_SPANTYPE type, void* detail) = 0;
  virtual int text(MD_TEXTTYPE type, std::string_view s) = 0;

  struct List {
    bool ordered = false;
    unsigned next = 1;
    bool tight = true;
  };
  void enter_list(MD_BLOCKTYPE type, void* detail);
  void leave_list();
  std::string item_marker(std::string_view bullet);
  int block_gap() const { return !lists_.empty() && lists_.back().tight ? 1 : 2; }
  void leave_item() {
    pending_ = block_gap();
    fresh_ = false;
  }
  // After a paragraph, rule, HTML block or table: a paragraph in a list item owes the list's gap.
  void leave_leaf(MD_BLOCKTYPE type) { pending_ = type == MD_BLOCK_P && !lists_.empty() ? block_gap() : 2; }

  void enter_table() { first_row_ = true; }
  bool table_row();   // true when a row separator is owed (not the first row)
  bool table_cell();  // true when a cell separator is owed (not the row's first cell)

  bool enter_image(MD_SPANTYPE type, void* detail);
  // True inside an image; `src` gets the image's source when its outermost span just closed (else "").
  bool leave_image(MD_SPANTYPE type, std::string& src);

  static bool plain_info_word(std::string_view info);
  std::string trimmed();

  std::string out_;
  int quote_depth_ = 0;
  std::vector<List> lists_;
  int pending_ = 0;     // line breaks owed before the next block
  bool fresh_ = false;  // a container just opened: its first block needs no separator

 private:
  bool first_row_ = true, first_cell_ = true;
  int image_depth_ = 0;
  std::string image_src_;
};

// A link's href, an image's src or a code fence's language, with its character references decoded as
// CommonMark says (`[x](/?a=1&amp;b=2)` links to `/?a=1&b=2`); md4c has already resolved the backslash
// escapes.
std::string attribute(const MD_ATTRIBUTE& a);

}  // namespace sigil::channels
