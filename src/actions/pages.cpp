#include "sigil/actions/pages.h"

#include <boost/json/object.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "sigil/net/url.h"
#include "sigil/text/ascii.h"
#include "sigil/text/char_refs.h"
#include "sigil/text/utf8.h"

namespace sigil::actions {
namespace {

namespace ascii = text::ascii;

constexpr std::size_t kMaxTitle = 120;

std::string_view string_arg(const exec::Directive& d, const char* name) {
  const auto* v = d.args.if_contains(name);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

exec::HandlerResult publish(const PagesConfig& config, const exec::Directive& d, exec::ActionContext& ctx) {
  const std::string_view html = string_arg(d, "html");
  if (ascii::trim(html).empty()) return exec::HandlerResult::error("publishWebPage: the page is empty");
  if (html.size() > config.max_bytes)
    return exec::HandlerResult::error("publishWebPage: the page is " + std::to_string(html.size()) +
                                      " bytes; at most " + std::to_string(config.max_bytes) + " are allowed");
  if (ctx.stop_requested()) return exec::HandlerResult::error("publishWebPage: stopped before it ran");

  const std::string title = page_title(html);
  auto page = ctx.store().put_page(ctx.scope(), title, html, config.allow_scripts, ctx.now());
  if (!page) return exec::HandlerResult::error("publishWebPage: could not store the page: " + page.error());

  const std::string url = net::without_trailing_slashes(config.base_url) + "/pages/" + page->slug;
  std::string message =
      title.empty() ? "published an untitled page at " + url : "published \"" + title + "\" at " + url;
  if (!config.allow_scripts && ascii::ifind(html, "<script") != std::string_view::npos)
    message += "; scripts are blocked on this server";
  boost::json::object result;
  result["url"] = url;
  result["slug"] = page->slug;
  result["title"] = title;
  return exec::HandlerResult::ok(std::move(message), std::move(result));
}

}  // namespace

std::string page_title(std::string_view html) {
  std::size_t open = 0;
  for (;;) {
    open = ascii::ifind(html, "<title", open);
    if (open == std::string_view::npos) return {};
    const std::size_t after = open + 6;
    // `<title>` or `<title attr…>`, not `<titles>`.
    if (after < html.size() && (html[after] == '>' || ascii::is_space(html[after]))) break;
    open = after;
  }
  const std::size_t gt = html.find('>', open);
  if (gt == std::string_view::npos) return {};
  const std::size_t close = ascii::ifind(html, "</title", gt + 1);
  const std::string_view raw = html.substr(gt + 1, close == std::string_view::npos ? 0 : close - gt - 1);

  // The parser's character references (spec 2.3), plus &nbsp;, which titles often hold.
  std::string with_spaces;
  for (std::size_t i = 0; i < raw.size();) {
    if (raw.substr(i, 6) == "&nbsp;") {
      with_spaces += ' ';
      i += 6;
    } else {
      with_spaces += raw[i++];
    }
  }
  const std::string decoded = text::decode_char_refs(with_spaces);
  // Whitespace runs (line breaks included: a message is one line) become one space.
  std::string title;
  for (char c : decoded) {
    if (ascii::is_space(c)) {
      if (!title.empty() && title.back() != ' ') title += ' ';
    } else {
      title += c;
    }
  }
  while (!title.empty() && title.back() == ' ') title.pop_back();
  if (title.size() > kMaxTitle) {
    title.resize(text::safe_cut(title, kMaxTitle));
    while (!title.empty() && title.back() == ' ') title.pop_back();
  }
  return title;
}

void add_pages_handlers(exec::HandlerTable& table, PagesConfig config) {
  auto shared = std::make_shared<const PagesConfig>(std::move(config));
  table.add("publishWebPage", [shared](const exec::Directive& d, exec::ActionContext& ctx) {
    return publish(*shared, d, ctx);
  });
}

}  // namespace sigil::actions
