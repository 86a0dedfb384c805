// HTML to readable text: libxml2 builds the tree (it repairs whatever a real page gets wrong); what is
// content and how it reads as text is ours (html_text.h says what). The only translation unit that
// includes libxml2.
#include "sigil/actions/html_text.h"

#include <iconv.h>
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sigil/text/ascii.h"
#include "sigil/text/utf8.h"

namespace sigil::actions {
namespace {

namespace ascii = text::ascii;

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
constexpr int kMaxDepth = 512;  // deeper subtrees are left out: no recursion without end on hostile markup

std::string valid_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    const std::size_t len = std::max<std::size_t>(1, text::unit_length(bytes, i));
    const std::string_view unit = bytes.substr(i, len);
    if (text::is_valid_utf8(unit))
      out += unit;
    else
      out += kReplacement;
    i += len;
  }
  return out;
}

std::string normalized_label(std::string_view charset) {
  std::string label = ascii::to_lower(ascii::trim(charset));
  while (!label.empty() && (label.front() == '"' || label.front() == '\'')) label.erase(0, 1);
  while (!label.empty() && (label.back() == '"' || label.back() == '\'')) label.pop_back();
  // The web's labels (WHATWG Encoding): these all mean windows-1252, a superset of Latin-1 that real pages
  // labelled ISO-8859-1 use (curly quotes at 0x93/0x94).
  if (label == "iso-8859-1" || label == "iso8859-1" || label == "latin1" || label == "l1" ||
      label == "us-ascii" || label == "ascii" || label == "cp1252" || label == "x-cp1252")
    return "windows-1252";
  return label;
}

// The charset a page declares in its first bytes: <meta charset="..."> or
// <meta http-equiv="Content-Type" content="text/html; charset=...">.
std::string declared_charset(std::string_view html) {
  const std::string_view head = html.substr(0, std::min<std::size_t>(html.size(), 4096));
  for (std::size_t at = 0;;) {
    at = ascii::ifind(head, "<meta", at);
    if (at == std::string_view::npos) return {};
    const std::size_t end = head.find('>', at);
    const std::string_view tag = head.substr(at, end == std::string_view::npos ? head.npos : end - at);
    at += 5;
    const std::size_t c = ascii::ifind(tag, "charset");
    if (c == std::string_view::npos) continue;
    std::size_t i = c + 7;
    while (i < tag.size() && (ascii::is_space(tag[i]) || tag[i] == '=' || tag[i] == '"' || tag[i] == '\''))
      ++i;
    std::size_t j = i;
    while (j < tag.size() &&
           (ascii::is_alnum(tag[j]) || tag[j] == '-' || tag[j] == '_' || tag[j] == ':' || tag[j] == '.'))
      ++j;
    if (j > i) return std::string(tag.substr(i, j - i));
  }
}

bool space_byte(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

// Whitespace runs (U+00A0 included: pages use &nbsp; as a space) become one space.
std::string collapse(std::string_view in) {
  std::string out;
  bool pending = false;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const bool nbsp = static_cast<unsigned char>(in[i]) == 0xC2 && i + 1 < in.size() &&
                      static_cast<unsigned char>(in[i + 1]) == 0xA0;
    if (space_byte(in[i]) || nbsp) {
      pending = true;
      if (nbsp) ++i;
      continue;
    }
    if (pending && !out.empty()) out += ' ';
    pending = false;
    out += in[i];
  }
  return out;
}

std::string_view name_of(const xmlNode* node) {
  return node->name != nullptr ? std::string_view(reinterpret_cast<const char*>(node->name))
                               : std::string_view();
}

std::string_view content_of(const xmlNode* node) {
  return node->content != nullptr ? std::string_view(reinterpret_cast<const char*>(node->content))
                                  : std::string_view();
}

std::string_view attribute(const xmlNode* node, std::string_view name) {
  for (const xmlAttr* a = node->properties; a != nullptr; a = a->next) {
    if (a->name == nullptr || !ascii::iequals(reinterpret_cast<const char*>(a->name), name)) continue;
    if (a->children != nullptr && a->children->content != nullptr)
      return reinterpret_cast<const char*>(a->children->content);
    return "";
  }
  return {};
}

bool has_attribute(const xmlNode* node, std::string_view name) {
  for (const xmlAttr* a = node->properties; a != nullptr; a = a->next)
    if (a->name != nullptr && ascii::iequals(reinterpret_cast<const char*>(a->name), name)) return true;
  return false;
}

template <std::size_t N>
bool one_of(std::string_view word, const std::array<std::string_view, N>& words) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

constexpr std::array<std::string_view, 22> kDroppedTags = {
    "script", "style",  "noscript", "template", "nav",    "header", "footer", "aside",
    "form",   "iframe", "svg",      "canvas",   "button", "select", "input",  "textarea",
    "object", "embed",  "dialog",   "menu",     "head",   "math"};
constexpr std::array<std::string_view, 5> kDroppedRoles = {"navigation", "banner", "contentinfo",
                                                           "complementary", "search"};
// Words of a class or id that mark page furniture. Not "nav": layout wrappers are named after the navigation
// they sit beside (Sphinx's `wy-grid-for-nav` holds the whole page).
constexpr std::array<std::string_view, 31> kBoilerplate = {
    "ad",      "ads",        "advert",      "adverts",    "advertisement", "sponsor", "sponsored", "promo",
    "cookie",  "cookies",    "consent",     "newsletter", "share",         "sharing", "social",    "related",
    "sidebar", "breadcrumb", "breadcrumbs", "comments",   "popup",         "modal",   "subscribe", "skip",
    "navbar",  "toolbar",    "paywall",     "signup",     "outbrain",      "taboola", "headerlink"};
// A class that also says "content" is kept: `post-content has-sidebar` is the content.
constexpr std::array<std::string_view, 9> kContentWords = {"article", "body",  "content", "main", "post",
                                                           "entry",   "story", "text",    "prose"};

// The lower-case words of a class or id value ("post-content has-sidebar" -> post, content, has, sidebar).
std::vector<std::string> words_of(std::string_view value) {
  std::vector<std::string> out;
  std::string word;
  for (char c : value) {
    if (ascii::is_alnum(c)) {
      word += ascii::lower(c);
    } else if (!word.empty()) {
      out.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) out.push_back(std::move(word));
  return out;
}

bool is_element(const xmlNode* node) { return node->type == XML_ELEMENT_NODE; }

// Whether the content proper is inside: then no class name can make the block furniture.
bool holds_content(const xmlNode* node, int depth = 0) {
  if (depth > kMaxDepth) return false;
  for (const xmlNode* child = node->children; child != nullptr; child = child->next) {
    if (!is_element(child)) continue;
    const std::string_view tag = name_of(child);
    if (tag == "main" || tag == "article" || tag == "h1") return true;
    if (holds_content(child, depth + 1)) return true;
  }
  return false;
}

// An article's own <header> (its headline, its byline) is content; the page's is not.
bool inside_content(const xmlNode* node) {
  for (const xmlNode* up = node->parent; up != nullptr && is_element(up); up = up->parent) {
    const std::string_view tag = name_of(up);
    if (tag == "article" || tag == "main") return true;
  }
  return false;
}

bool is_dropped(const xmlNode* node) {
  const std::string_view tag = name_of(node);
  if (tag == "header" && inside_content(node)) return false;
  if (one_of(tag, kDroppedTags)) return true;
  if (has_attribute(node, "hidden")) return true;
  if (ascii::iequals(attribute(node, "aria-hidden"), "true")) return true;
  if (one_of(ascii::to_lower(attribute(node, "role")), kDroppedRoles)) return true;
  if (tag == "html" || tag == "body" || tag == "main" || tag == "article") return false;
  bool boilerplate = false;
  for (std::string_view which : {"class", "id"}) {
    for (const std::string& word : words_of(attribute(node, which))) {
      if (one_of(std::string_view(word), kContentWords)) return false;
      boilerplate = boilerplate || one_of(std::string_view(word), kBoilerplate);
    }
  }
  return boilerplate && !holds_content(node);
}
bool is_text(const xmlNode* node) {
  return node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE;
}

struct Stats {
  std::size_t text = 0;   // non-space bytes of kept text
  std::size_t links = 0;  // of which inside <a>
  std::size_t commas = 0;
};

// One pass over the tree: text per element (dropped subtrees count nothing) and the nodes the choice of the
// content root looks at.
class Survey {
 public:
  explicit Survey(xmlNode* root) { measure(root, false, 0); }

  const Stats& stats(const xmlNode* node) const {
    static const Stats kNone;
    const auto it = stats_.find(node);
    return it == stats_.end() ? kNone : it->second;
  }

  // Document order: the position where the element starts, and where its subtree ends.
  std::size_t order(const xmlNode* node) const {
    const auto it = span_.find(node);
    return it == span_.end() ? 0 : it->second.first;
  }
  bool inside(const xmlNode* node, const xmlNode* root) const {
    const auto n = span_.find(node), r = span_.find(root);
    return n != span_.end() && r != span_.end() && n->second.first >= r->second.first &&
           n->second.first < r->second.second;
  }

  std::vector<xmlNode*> mains, articles, paragraphs, headings;
  xmlNode* body = nullptr;
  xmlNode* title = nullptr;

 private:
  Stats measure(xmlNode* node, bool in_link, int depth) {
    Stats total;
    if (depth > kMaxDepth) return total;
    const std::size_t entered = next_++;
    for (xmlNode* child = node->children; child != nullptr; child = child->next) {
      if (is_text(child)) {
        for (char c : content_of(child)) {
          if (space_byte(c)) continue;
          ++total.text;
          if (in_link) ++total.links;
          if (c == ',') ++total.commas;
        }
      } else if (is_element(child)) {
        const std::string_view tag = name_of(child);
        if (tag == "head" && title == nullptr) title = find_title(child);
        if (is_dropped(child)) continue;
        const Stats s = measure(child, in_link || tag == "a", depth + 1);
        total.text += s.text;
        total.links += s.links;
        total.commas += s.commas;
      }
    }
    if (is_element(node)) {
      stats_[node] = total;
      span_[node] = {entered, next_};
      const std::string_view tag = name_of(node);
      if (tag == "main" || ascii::iequals(attribute(node, "role"), "main")) mains.push_back(node);
      if (tag == "article") articles.push_back(node);
      if (tag == "p" || tag == "pre" || tag == "td" || tag == "blockquote") paragraphs.push_back(node);
      if (tag == "body" && body == nullptr) body = node;
      if (tag == "h1") headings.push_back(node);
    }
    return total;
  }

  static xmlNode* find_title(xmlNode* head) {
    for (xmlNode* child = head->children; child != nullptr; child = child->next)
      if (is_element(child) && name_of(child) == "title") return child;
    return nullptr;
  }

  std::unordered_map<const xmlNode*, Stats> stats_;
  std::unordered_map<const xmlNode*, std::pair<std::size_t, std::size_t>> span_;
  std::size_t next_ = 0;
};

// The page's headline when the content root lacks one: the last <h1> before the root (a blog's title sits
// just above the block of its paragraphs).
const xmlNode* headline_before(const Survey& survey, const xmlNode* root) {
  const xmlNode* found = nullptr;
  for (const xmlNode* h : survey.headings) {
    if (survey.inside(h, root)) return nullptr;
    if (survey.order(h) < survey.order(root)) found = h;
  }
  return found;
}

xmlNode* most_text(const Survey& survey, const std::vector<xmlNode*>& nodes) {
  xmlNode* best = nullptr;
  for (xmlNode* n : nodes)
    if (best == nullptr || survey.stats(n).text > survey.stats(best).text) best = n;
  return best;
}

// Where paragraph text is densest (the Readability idea, in our own small form): each paragraph of 25+
// characters scores 1 + its commas + a point per 100 characters (at most 3), all to its parent and half to
// its grandparent; a block's score is then discounted by the share of its text that is link text.
xmlNode* densest(const Survey& survey) {
  std::unordered_map<xmlNode*, double> scores;
  for (xmlNode* p : survey.paragraphs) {
    const Stats& s = survey.stats(p);
    if (s.text < 25) continue;
    const double score =
        1.0 + static_cast<double>(s.commas) + std::min(3.0, static_cast<double>(s.text) / 100.0);
    if (xmlNode* parent = p->parent; parent != nullptr && is_element(parent)) {
      scores[parent] += score;
      if (xmlNode* grand = parent->parent; grand != nullptr && is_element(grand)) scores[grand] += score / 2;
    }
  }
  xmlNode* best = nullptr;
  double best_score = 0;
  for (const auto& [node, score] : scores) {
    const Stats& s = survey.stats(node);
    const double density = s.text == 0 ? 1.0 : static_cast<double>(s.links) / static_cast<double>(s.text);
    const double final_score = score * (1.0 - density);
    // Ties go to the earlier block, so the choice never depends on the hash map's order.
    if (final_score > best_score ||
        (final_score == best_score && best != nullptr && survey.order(node) < survey.order(best))) {
      best = node;
      best_score = final_score;
    }
  }
  return best;
}

xmlNode* content_root(const Survey& survey, xmlNode* document_root) {
  if (xmlNode* main = most_text(survey, survey.mains); main != nullptr && survey.stats(main).text > 0)
    return main;
  if (xmlNode* article = most_text(survey, survey.articles);
      article != nullptr && survey.stats(article).text > 0)
    return article;
  if (xmlNode* dense = densest(survey)) return dense;
  return survey.body != nullptr ? survey.body : document_root;
}

enum class BlockKind { paragraph, list_item, table_row, code };

struct Block {
  BlockKind kind;
  std::string text;
};

// Turns the content root into blocks of text (html_text.h's output rules).
class Renderer {
 public:
  std::vector<Block> blocks;

  void finish() { flush(); }
  void render_heading(const xmlNode* h1) {
    render(h1);
    flush("# ");
  }

  void render(const xmlNode* node, int depth = 0) {
    if (depth > kMaxDepth) return;
    for (const xmlNode* child = node->children; child != nullptr; child = child->next) {
      if (is_text(child)) {
        // A line break in the source is a space; only <br> breaks a line.
        for (char c : content_of(child)) inline_ += (c == '\n' || c == '\r') ? ' ' : c;
      } else if (is_element(child) && !is_dropped(child)) {
        element(child, depth + 1);
      }
    }
  }

 private:
  void element(const xmlNode* node, int depth) {
    const std::string_view tag = name_of(node);
    if (tag == "br") {
      inline_ += '\n';
    } else if (tag.size() == 2 && tag[0] == 'h' && tag[1] >= '1' && tag[1] <= '6') {
      flush();
      render(node, depth);
      flush(std::string(static_cast<std::size_t>(tag[1] - '0'), '#') + " ");
    } else if (tag == "ul" || tag == "ol") {
      flush();
      lists_.push_back({tag == "ol", 0});
      render(node, depth);
      flush();
      lists_.pop_back();
    } else if (tag == "li") {
      flush();
      std::string prefix(lists_.empty() ? 0 : 2 * (lists_.size() - 1), ' ');
      if (!lists_.empty() && lists_.back().ordered) {
        prefix += std::to_string(++lists_.back().count) + ". ";
      } else {
        prefix += "- ";
      }
      // Saved and restored: a list inside an item must not lose the outer item's indentation.
      const std::string outer = std::exchange(item_prefix_, std::move(prefix));
      render(node, depth);
      flush();
      item_prefix_.assign(outer.size(), ' ');
    } else if (tag == "pre") {
      flush();
      code_block(node);
    } else if (tag == "blockquote") {
      flush();
      ++quote_;
      render(node, depth);
      flush();
      --quote_;
    } else if (tag == "tr") {
      flush();
      std::string row;
      for (const xmlNode* cell = node->children; cell != nullptr; cell = cell->next) {
        if (!is_element(cell) || is_dropped(cell)) continue;
        Renderer inner;
        inner.render(cell, depth);
        inner.flush();
        std::string text;
        for (const Block& b : inner.blocks) text += (text.empty() ? "" : " ") + b.text;
        if (!row.empty()) row += " | ";
        row += text;
      }
      if (!ascii::trim(row).empty()) add(BlockKind::table_row, row);
    } else if (tag == "code" || tag == "kbd" || tag == "samp") {
      inline_ += '`';
      render(node, depth);
      inline_ += '`';
    } else if (tag == "img" || tag == "hr") {
      if (tag == "hr") flush();
    } else if (is_block(tag)) {
      flush();
      render(node, depth);
      flush();
    } else {
      render(node, depth);
    }
  }

  static bool is_block(std::string_view tag) {
    static constexpr std::array<std::string_view, 25> kBlocks = {
        "p",       "div",  "section", "article",  "main",   "figure",  "figcaption", "address", "details",
        "summary", "dl",   "dt",      "dd",       "center", "table",   "thead",      "tbody",   "tfoot",
        "caption", "body", "html",    "fieldset", "hgroup", "picture", "video"};
    return one_of(tag, kBlocks);
  }

  void code_block(const xmlNode* node) {
    xmlChar* raw = xmlNodeGetContent(node);
    std::string code = raw != nullptr ? reinterpret_cast<const char*>(raw) : "";
    xmlFree(raw);
    if (!code.empty() && code.front() == '\n') code.erase(0, 1);
    while (!code.empty() && (code.back() == '\n' || code.back() == ' ' || code.back() == '\r'))
      code.pop_back();
    if (!code.empty()) add(BlockKind::code, "```\n" + code + "\n```");
  }

  // The pending inline text as one block: lines trimmed, runs collapsed, `heading` (or the list item's
  // marker) in front.
  void flush(const std::string& heading = {}) {
    std::string text;
    std::size_t start = 0;
    while (start <= inline_.size()) {
      const std::size_t end = std::min(inline_.find('\n', start), inline_.size());
      std::string line = collapse(std::string_view(inline_).substr(start, end - start));
      if (!line.empty()) text += (text.empty() ? "" : "\n") + line;
      start = end + 1;
    }
    inline_.clear();
    if (text.empty() || text == "``") return;
    if (!heading.empty()) {
      add(BlockKind::paragraph, heading + text);
    } else if (!item_prefix_.empty()) {
      add(BlockKind::list_item, item_prefix_ + text);
      item_prefix_.assign(item_prefix_.size(), ' ');  // a second block of the same item lines up under it
    } else {
      add(BlockKind::paragraph, text);
    }
  }

  void add(BlockKind kind, std::string text) {
    if (quote_ > 0) {
      const std::string marker(static_cast<std::size_t>(quote_), '>');
      std::string quoted = marker + " ";
      for (char c : text) {
        quoted += c;
        if (c == '\n') quoted += marker + " ";
      }
      text = std::move(quoted);
    }
    blocks.push_back({kind, std::move(text)});
  }

  struct List {
    bool ordered;
    int count;
  };
  std::string inline_;
  std::vector<List> lists_;
  std::string item_prefix_;
  int quote_ = 0;
};

std::string join(const std::vector<Block>& blocks, std::size_t max_bytes, bool& cut) {
  std::string out;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const bool tight = i > 0 && blocks[i].kind == blocks[i - 1].kind &&
                       (blocks[i].kind == BlockKind::list_item || blocks[i].kind == BlockKind::table_row);
    const std::string_view separator = i == 0 ? "" : (tight ? "\n" : "\n\n");
    if (out.size() + separator.size() + blocks[i].text.size() <= max_bytes) {
      out += separator;
      out += blocks[i].text;
      continue;
    }
    cut = true;
    if (out.empty()) out = blocks[i].text.substr(0, text::safe_cut(blocks[i].text, max_bytes));
    break;
  }
  return out;
}

struct DocFree {
  void operator()(xmlDoc* doc) const { xmlFreeDoc(doc); }
};

void ignore_errors(void*, const char*, ...) {}
void ignore_structured(void*, xmlError*) {}

}  // namespace

std::string to_utf8(std::string_view bytes, std::string_view charset) {
  const std::string label = normalized_label(charset);
  if (label.empty() || label == "utf-8" || label == "utf8") return valid_utf8(bytes);
  iconv_t cd = ::iconv_open("UTF-8", label.c_str());
  if (cd == reinterpret_cast<iconv_t>(-1)) return valid_utf8(bytes);  // an unknown label: read as UTF-8
  std::string out;
  std::vector<char> in(bytes.begin(), bytes.end());
  char* src = in.data();
  std::size_t left = in.size();
  std::array<char, 4096> buffer{};
  while (left > 0) {
    char* dst = buffer.data();
    std::size_t room = buffer.size();
    const std::size_t rc = ::iconv(cd, &src, &left, &dst, &room);
    out.append(buffer.data(), buffer.size() - room);
    if (rc != static_cast<std::size_t>(-1)) continue;
    if (errno == E2BIG) continue;
    // EILSEQ or EINVAL: a byte this charset does not define (or a cut sequence) becomes one U+FFFD.
    out += kReplacement;
    ++src;
    --left;
  }
  ::iconv_close(cd);
  return valid_utf8(out);
}

PageText html_to_text(std::string_view html, std::string_view charset, std::size_t max_bytes) {
  static std::once_flag init;
  std::call_once(init, [] { xmlInitParser(); });

  std::string declared(charset);
  if (html.substr(0, 3) == "\xEF\xBB\xBF") {
    html.remove_prefix(3);
    declared = "utf-8";  // a byte order mark wins over every label
  }
  if (declared.empty()) declared = declared_charset(html);
  const std::string utf8 = to_utf8(html, declared);

  // libxml2 reports through per-thread handlers; ours drop everything (a broken page is not an event).
  xmlSetGenericErrorFunc(nullptr, ignore_errors);
  xmlSetStructuredErrorFunc(nullptr, ignore_structured);
  const int options = HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET |
                      HTML_PARSE_IGNORE_ENC | HTML_PARSE_COMPACT;
  std::unique_ptr<xmlDoc, DocFree> doc(
      htmlReadMemory(utf8.data(), static_cast<int>(utf8.size()), nullptr, "UTF-8", options));
  PageText page;
  if (!doc) return page;
  xmlNode* root = xmlDocGetRootElement(doc.get());
  if (root == nullptr) return page;

  Survey survey(reinterpret_cast<xmlNode*>(doc.get()));
  if (survey.title != nullptr) {
    xmlChar* raw = xmlNodeGetContent(survey.title);
    page.title = collapse(raw != nullptr ? reinterpret_cast<const char*>(raw) : "");
    xmlFree(raw);
  }
  Renderer renderer;
  const xmlNode* content = content_root(survey, root);
  if (const xmlNode* headline = headline_before(survey, content)) renderer.render_heading(headline);
  renderer.render(content);
  renderer.finish();
  page.text = join(renderer.blocks, max_bytes, page.cut);
  return page;
}

}  // namespace sigil::actions
