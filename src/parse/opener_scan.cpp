#include "opener_scan.h"

#include <algorithm>

namespace sigil::parse {

namespace {
constexpr std::size_t kMaxToolName = 128;
constexpr std::string_view kMcpPrefix = "mcp_";
constexpr std::string_view kCdata = "CDATA[";
}  // namespace

NameIndex::NameIndex(const Grammar& grammar)
    : tags(grammar.tag_names()),
      brackets(grammar.bracket_names()),
      brackets_ci(grammar.brackets_case_insensitive()) {
  for (std::size_t i = 0; i < tags.size(); ++i) {
    tags_lower.push_back(text::ascii::to_lower(tags[i].name));
    tag_table.add(tags_lower.back(), static_cast<int>(i));
  }
  tag_table.build();
  for (std::size_t i = 0; i < brackets.size(); ++i) {
    std::string n = brackets[i].name;
    if (brackets_ci)
      for (char& c : n) c = text::ascii::upper(c);
    bracket_table.add(std::move(n), static_cast<int>(i));
  }
  bracket_table.build();
  auto info_of = [&](int spelling) {
    if (spelling < 0) return;
    const auto at = static_cast<std::size_t>(spelling);
    if (at >= spelling_infos.size()) spelling_infos.resize(at + 1, nullptr);
    spelling_infos[at] = &grammar.spelling(spelling);
  };
  for (const TagName& t : tags) info_of(t.spelling);
  for (const BracketName& b : brackets) info_of(b.spelling);
  std::size_t longest_server = 0;
  for (const std::string& s : grammar.mcp_servers()) {
    mcp_servers.push_back(s);
    mcp_servers_lower.push_back(text::ascii::to_lower(s));
    longest_server = std::max(longest_server, s.size());
  }
  longest_tag = tag_table.longest();
  mcp_body_limit = grammar.mcp_body_limit();
  longest_mcp = mcp_servers.empty() ? 0 : kMcpPrefix.size() + longest_server + 1 + kMaxToolName;
}

int NameIndex::match_mcp(std::string_view name, std::size_t* tool_begin) const {
  if (name.substr(0, kMcpPrefix.size()) != kMcpPrefix) return -1;
  std::string_view rest = name.substr(kMcpPrefix.size());
  int best = -1;
  std::size_t best_len = 0;
  for (std::size_t i = 0; i < mcp_servers_lower.size(); ++i) {
    const std::string& s = mcp_servers_lower[i];
    if (rest.size() > s.size() + 1 && rest.substr(0, s.size()) == s && rest[s.size()] == '_' &&
        rest.size() - s.size() - 1 <= kMaxToolName && (best < 0 || s.size() > best_len)) {
      best = static_cast<int>(i);
      best_len = s.size();
    }
  }
  if (best >= 0 && tool_begin != nullptr) *tool_begin = kMcpPrefix.size() + best_len + 1;
  return best;
}

bool NameIndex::could_be_mcp(std::string_view name) const {
  if (mcp_servers.empty()) return false;
  if (name.size() <= kMcpPrefix.size()) return kMcpPrefix.substr(0, name.size()) == name;
  if (name.substr(0, kMcpPrefix.size()) != kMcpPrefix) return false;
  std::string_view rest = name.substr(kMcpPrefix.size());
  for (const std::string& s : mcp_servers_lower) {
    if (rest.size() <= s.size()) {
      if (s.compare(0, rest.size(), rest) == 0) return true;
    } else if (rest.substr(0, s.size()) == s && rest[s.size()] == '_' &&
               rest.size() - s.size() - 1 < kMaxToolName) {
      return true;
    }
  }
  return false;
}

void OpenerScan::start(unsigned char c, std::uint64_t offset, Options options) {
  options_ = options;
  start_ = offset;
  length_ = 1;
  name_.clear();
  raw_name_.clear();
  index_ = -1;
  mcp_server_ = -1;
  node_ = NameTable::kRoot;
  state_ = (c == '<') ? State::Lt : State::Bracket;
}

// Adds a tag-name byte. False when no registered name can follow, or, holding an unregistered tag in the
// 2.6 window, when it grew past the tag limit.
bool OpenerScan::add_name_byte(unsigned char c) {
  name_ += text::ascii::lower(static_cast<char>(c));
  raw_name_ += static_cast<char>(c);
  node_ = names_->tag_table.walk(node_, c);
  if (options_.window_open && !options_.trigger_mode) return length_ <= options_.tag_limit;
  return tag_prefix_possible();
}

bool OpenerScan::tag_prefix_possible() const {
  return node_ != NameTable::kDead || names_->could_be_mcp(name_);
}

bool OpenerScan::partial_close_of(std::string_view lower_name) const {
  if (state_ == State::CloseSlash) return true;
  if (state_ == State::CloseName) return lower_name.substr(0, name_.size()) == name_;
  if (state_ == State::CloseWs) return lower_name == name_;
  return false;
}

OpenerScan::Kind OpenerScan::resolve_tag_name(unsigned char delimiter) {
  bool delimits = is_markup_space(delimiter) || delimiter == '>' || delimiter == '/';
  index_ = names_->tag_table.value(node_);
  if (index_ < 0) mcp_server_ = names_->match_mcp(name_, &mcp_tool_begin_);
  bool registered = index_ >= 0 || mcp_server_ >= 0;
  if (!delimits) {
    state_ = State::Idle;
    return Kind::NotMarkup;
  }
  if (registered) {
    if (index_ >= 0 && names_->tags[static_cast<std::size_t>(index_)].role == TagRole::Hidden &&
        options_.trigger_mode) {
      // 8.1 inside a construct: only a line-start opener followed by a line break counts as a trigger.
      if (!options_.at_line_start) {
        state_ = State::Idle;
        return Kind::NotMarkup;
      }
      state_ = State::HiddenWs;
      return step(delimiter);
    }
    state_ = State::Idle;
    return Kind::TagOpen;
  }
  if (options_.window_open && !options_.trigger_mode) {
    state_ = State::Unregistered;
    return step(delimiter);
  }
  state_ = State::Idle;
  return Kind::NotMarkup;
}

OpenerScan::Kind OpenerScan::resolve_close_name() {
  index_ = names_->tag_table.value(node_);
  if (index_ < 0) mcp_server_ = names_->match_mcp(name_, &mcp_tool_begin_);
  state_ = State::Idle;
  if (index_ >= 0 || mcp_server_ >= 0) return Kind::CloseTag;
  if (options_.window_open && !options_.trigger_mode) return Kind::Unregistered;
  return Kind::NotMarkup;
}

OpenerScan::Kind OpenerScan::step(unsigned char c) {
  ++length_;
  switch (state_) {
    case State::Idle:
      --length_;
      return Kind::NotMarkup;
    case State::Lt:
      if (c == '/') {
        state_ = State::CloseSlash;
        return Kind::Pending;
      }
      if (c == '!') {
        state_ = State::Bang;
        return Kind::Pending;
      }
      if (is_name_byte(c)) {
        state_ = State::TagName;
        if (!add_name_byte(c)) break;
        return Kind::Pending;
      }
      break;
    case State::TagName:
      if (is_name_byte(c)) {
        if (!add_name_byte(c)) break;
        return Kind::Pending;
      }
      --length_;  // the delimiter is not consumed
      return resolve_tag_name(c);
    case State::CloseSlash:
      if (is_name_byte(c)) {
        state_ = State::CloseName;
        if (!add_name_byte(c)) break;
        return Kind::Pending;
      }
      break;
    case State::CloseName:
      if (is_name_byte(c)) {
        if (!add_name_byte(c)) break;
        return Kind::Pending;
      }
      if (is_markup_space(c)) {
        state_ = State::CloseWs;
        return Kind::Pending;
      }
      if (c == '>') return resolve_close_name();
      break;
    case State::CloseWs:
      if (is_markup_space(c)) {
        if (length_ > options_.tag_limit) break;
        return Kind::Pending;
      }
      if (c == '>') return resolve_close_name();
      break;
    case State::Bang:
      if (c == '-') {
        state_ = State::BangDash;
        return Kind::Pending;
      }
      if (c == '[') {
        state_ = State::Cdata;
        cdata_matched_ = 0;
        return Kind::Pending;
      }
      break;
    case State::BangDash:
      if (c == '-') {
        state_ = State::Idle;
        return Kind::CommentOpen;
      }
      break;
    case State::Cdata:
      if (static_cast<char>(c) == kCdata[cdata_matched_]) {
        if (++cdata_matched_ == kCdata.size()) {
          state_ = State::Idle;
          return Kind::CdataOpen;
        }
        return Kind::Pending;
      }
      break;
    case State::Bracket:
    case State::BracketName: {
      bool name_byte = text::ascii::is_alnum(static_cast<char>(c)) || c == '_';
      if (name_byte) {
        const char b = names_->brackets_ci ? text::ascii::upper(static_cast<char>(c)) : static_cast<char>(c);
        name_ += b;
        node_ = names_->bracket_table.walk(node_, static_cast<unsigned char>(b));
        state_ = State::BracketName;
        if (node_ == NameTable::kDead) break;
        return Kind::Pending;
      }
      if (state_ == State::BracketName && (c == ':' || c == ']')) {
        index_ = names_->bracket_table.value(node_);
        if (index_ < 0) break;
        state_ = State::Idle;
        return c == ':' ? Kind::BracketOpen : Kind::BracketBare;
      }
      break;
    }
    case State::Unregistered:
      if (length_ > options_.tag_limit || c == '<') break;
      if (c == '"' || c == '\'') {
        quote_ = c;
        state_ = State::UnregisteredQuote;
      } else if (c == '>') {
        state_ = State::Idle;
        return Kind::Unregistered;
      }
      return Kind::Pending;
    case State::UnregisteredQuote:
      if (length_ > options_.tag_limit || c == '\n') break;
      if (c == quote_) state_ = State::Unregistered;
      return Kind::Pending;
    case State::HiddenWs:
      if (c == ' ' || c == '\t') return Kind::Pending;
      if (c == '>') {
        state_ = State::HiddenAfterGt;
        return Kind::Pending;
      }
      break;
    case State::HiddenAfterGt:
      if (c == ' ' || c == '\t' || c == '\r') {
        if (length_ > options_.tag_limit) break;
        return Kind::Pending;
      }
      if (c == '\n') {
        state_ = State::Idle;
        return Kind::HiddenTrigger;
      }
      break;
  }
  // Markup is ruled out at this byte: everything before it is text; the caller looks at this byte afresh.
  --length_;
  state_ = State::Idle;
  return Kind::NotMarkup;
}

}  // namespace sigil::parse
