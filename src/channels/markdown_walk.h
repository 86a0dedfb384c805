// What the chat platforms' Markdown renderers (telegram_html, discord_markdown) share: md4c's syntax tree
// walked with one set of options, the blocks laid out the one way both chats show them (blank lines owed
// between blocks, list items, rules, table rows and cells), and the bookkeeping of lists.
//
// What it promises:
// - walk() parses CommonMark with GitHub's strikethrough, tables and permissive autolinks, raw HTML as text
//   (a renderer never passes the model's HTML on), calling the hooks in document order; false only when md4c
//   gave up (memory exhaustion).
// - Blocks: each block starts with the line breaks owed since the last one (none first in a container that
//   just opened); a list item starts with its marker, a rule is "———", a table's rows are lines and its cells
//   are separated by " | ", header cells bold. What differs by chat (quotes, headings, code blocks, what a
//   line break and bold are) is the renderer's: the block hooks below.
// - Lists: enter_list()/leave_list() keep the open lists (ordered or not, their next number, tight or
//   loose); item_marker() is the next item's "N. " or the bullet given; block_gap() is the line breaks
//   owed after a block: one inside a tight list, else two; leave_item() and leave_leaf() owe them.
// - Tables: table_row()/table_cell() say whether a row or cell separator is owed before the next one.
// - Text reaches text() with the container's first content noted (fresh_ false) and every NUL shown as
//   U+FFFD (kReplacementChar), once, as CommonMark says (2.3), in code spans and blocks too (no NUL byte
//   reaches a chat); attribute() shows it so too.
// - Images show as their alt text, then " (src)" (shown_src() is the chat's escaping of src): the spans
//   inside an image, nested images too, reach no span hook (the renderer writes no markup for them).
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
  // The chat's markup for what the block walk writes itself: a list item's bullet, a header cell's bold.
  struct Marks {
    std::string_view bullet, bold_open, bold_close;
  };
  explicit MarkdownWalk(Marks marks) : marks_(marks) {}

  bool walk(std::string_view markdown);

  // The blocks each chat writes its own way; the walk has started the block (begin_block) before an enter
  // hook and owes two line breaks after a leave hook.
  virtual void line_break() = 0;  // one line break in the output
  virtual void close_spans() {}   // before a block starts or ends: a chat where no span may outlive its block
  virtual void enter_quote() = 0;  // quote_depth_ is the renderer's to count
  virtual void leave_quote() = 0;
  virtual void enter_heading(unsigned level) = 0;
  virtual void leave_heading() = 0;
  virtual void enter_code(const std::string& lang) = 0;  // lang: a plain word (plain_info_word) or ""
  virtual void leave_code() = 0;

  // Spans outside images, and text; the walk has noted that the container's first content is written
  // (fresh_). A MD_TEXT_NULLCHAR's s is kReplacementChar.
  virtual int enter_span(MD_SPANTYPE type, void* detail) = 0;
  virtual int leave_span(MD_SPANTYPE type) = 0;
  virtual std::string shown_src(std::string src) const { return src; }
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

  // The separator owed since the last block, unless its container just opened.
  void begin_block();
  void enter_table() { first_row_ = true; }
  bool table_row();   // true when a row separator is owed (not the first row)
  bool table_cell();  // true when a cell separator is owed (not the row's first cell)

  static bool plain_info_word(std::string_view info);
  std::string trimmed();

  std::string out_;
  int quote_depth_ = 0;
  std::vector<List> lists_;
  int pending_ = 0;     // line breaks owed before the next block
  bool fresh_ = false;  // a container just opened: its first block needs no separator

 private:
  int enter_block(MD_BLOCKTYPE type, void* detail);
  int leave_block(MD_BLOCKTYPE type);
  int walk_enter_span(MD_SPANTYPE type, void* detail);
  int walk_leave_span(MD_SPANTYPE type);
  int walk_text(MD_TEXTTYPE type, std::string_view s);
  bool enter_image(MD_SPANTYPE type, void* detail);
  // True inside an image; `src` gets the image's source when its outermost span just closed (else "").
  bool leave_image(MD_SPANTYPE type, std::string& src);

  Marks marks_;
  bool first_row_ = true, first_cell_ = true;
  bool after_nullchar_ = false;  // the last text was a MD_TEXT_NULLCHAR
  int image_depth_ = 0;
  std::string image_src_;
};

// U+FFFD, REPLACEMENT CHARACTER: what CommonMark shows for a NUL in the Markdown.
inline constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";
// s with every NUL byte shown as kReplacementChar: for text that reaches a chat without the walk (a plain
// text fallback) as for the walk's own text.
std::string nuls_replaced(std::string_view s);

// A link's href, an image's src or a code fence's language, with its character references decoded as
// CommonMark says (`[x](/?a=1&amp;b=2)` links to `/?a=1&b=2`); md4c has already resolved the backslash
// escapes.
std::string attribute(const MD_ATTRIBUTE& a);

}  // namespace sigil::channels
