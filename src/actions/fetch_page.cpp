#include "sigil/actions/fetch_page.h"

#include <boost/json/object.hpp>
#include <stdexcept>
#include <utility>
#include <variant>

#include "actions/json_fields.h"
#include "actions/web_client.h"
#include "sigil/actions/guarded_fetch.h"
#include "sigil/actions/html_text.h"
#include "sigil/net/ssrf_guard.h"
#include "sigil/net/url.h"
#include "sigil/text/ascii.h"
#include "sigil/text/diagnostic_text.h"
#include "sigil/text/utf8.h"

namespace sigil::actions {
namespace {

namespace ascii = text::ascii;
using Clock = std::chrono::steady_clock;

struct MediaType {
  std::string type;  // lower case, no parameters
  std::string charset;
};

MediaType media_type(std::string_view header) {
  MediaType out;
  const std::size_t semi = header.find(';');
  out.type = bare_media_type(header);
  if (semi == std::string_view::npos) return out;
  const std::string_view params = header.substr(semi + 1);
  const std::size_t at = ascii::ifind(params, "charset=");
  if (at == std::string_view::npos) return out;
  std::string_view value = params.substr(at + 8);
  value = value.substr(0, value.find(';'));
  value = ascii::trim(value);
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
    value = value.substr(1, value.size() - 2);
  out.charset = std::string(value);
  return out;
}

bool is_html(std::string_view type) { return type == "text/html" || type == "application/xhtml+xml"; }
bool is_plain(std::string_view type) {
  return type == "text/plain" || type == "text/markdown" || type == "text/x-markdown" ||
         type == "application/json";
}
bool is_redirect(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

Error refused(std::string message) { return make_error(ErrorCode::permission_denied, std::move(message)); }
Error failed(std::string message) { return make_error(ErrorCode::io, std::move(message)); }

std::string cut_text(std::string text, std::size_t max_bytes, bool& truncated) {
  if (text.size() <= max_bytes) return text;
  truncated = true;
  text.resize(text::safe_cut(text, max_bytes));
  return text;
}

}  // namespace

std::string bare_media_type(std::string_view content_type) {
  return ascii::to_lower(ascii::trim(content_type.substr(0, content_type.find(';'))));
}

std::string resolve_reference(std::string_view base, std::string_view location) {
  location = ascii::trim(location);
  if (ascii::istarts_with(location, "http://") || ascii::istarts_with(location, "https://"))
    return std::string(location);
  auto parsed = net::parse_url(base);
  if (std::holds_alternative<std::string>(parsed)) return std::string(location);
  const net::Url& url = std::get<net::Url>(parsed);
  const std::string origin = url.scheme + "://" + url.authority();
  if (location.substr(0, 2) == "//") return url.scheme + ":" + std::string(location);
  if (!location.empty() && location.front() == '/') return origin + std::string(location);
  if (!location.empty() && location.front() == '?') return origin + url.path + std::string(location);
  const std::size_t slash = url.path.rfind('/');
  return origin + url.path.substr(0, slash + 1) + std::string(location);
}

Result<GuardedAnswer> guarded_get(const FetchConfig& config, net::HttpClient& http, std::string_view url,
                                  std::string accept, std::size_t max_bytes, std::string_view what,
                                  const std::stop_token& stop) {
  net::SsrfGuardOptions guard_options;
  guard_options.allow_private = config.allow_private;
  guard_options.resolve_timeout = std::min(config.timeout, std::chrono::milliseconds(5'000));
  std::optional<net::SsrfGuard> guard;
  try {
    guard.emplace(guard_options, config.resolver ? config.resolver : net::system_resolver());
  } catch (const std::invalid_argument& e) {
    return make_error(ErrorCode::invalid_argument, std::string("[fetch] allow_private: ") + e.what());
  }

  const Clock::time_point deadline = Clock::now() + config.timeout;
  const auto too_late = [&] {
    return make_error(ErrorCode::timeout,
                      std::string(what) + " did not arrive within " + text::format_duration(config.timeout));
  };
  std::string current(ascii::trim(url));
  if (current.empty()) return make_error(ErrorCode::invalid_argument, "the URL is empty");
  for (std::size_t hops = 0;; ++hops) {
    // Every hop is checked from scratch: a public page may redirect to http://169.254.169.254/.
    auto target = guard->check(current);
    if (!target) {
      return refused((hops == 0 ? "refused " : "refused the redirect to ") + text::one_line(current) + ": " +
                     target.error());
    }
    if (Clock::now() >= deadline || stop.stop_requested()) return too_late();

    net::HttpRequest request;
    request.url = current;
    request.connect_address = target->address.to_string();
    request.headers = {{"Accept", accept}};
    request.timeouts.connect = std::chrono::milliseconds(10'000);
    request.timeouts.first_byte = config.timeout;
    request.timeouts.idle = std::chrono::milliseconds(10'000);
    request.timeouts.deadline = deadline;
    net::HttpResult answer = fetch_and_wait(http, std::move(request), max_bytes, stop);
    if (answer.error) {
      using K = net::NetErrorKind;
      if (answer.error->kind == K::deadline || answer.error->kind == K::cancelled) return too_late();
      return failed("cannot fetch " + text::one_line(current) + ": " + answer.error->message);
    }
    const int status = answer.head.status;
    if (is_redirect(status)) {
      const std::string* location = answer.head.find("Location");
      if (location == nullptr || ascii::trim(*location).empty())
        return failed("HTTP " + std::to_string(status) + " without a Location from " +
                      text::one_line(current));
      if (hops >= config.max_redirects)
        return failed("more than " + std::to_string(config.max_redirects) + " redirects, starting at " +
                      text::one_line(std::string(url)));
      current = resolve_reference(current, *location);
      continue;
    }
    if (status < 200 || status > 299) {
      std::string message = "HTTP " + std::to_string(status);
      if (!answer.head.reason.empty()) message += " " + text::one_line(answer.head.reason);
      return failed(text::one_line(current) + " answered " + message);
    }
    return GuardedAnswer{std::move(current), std::move(answer.head), std::move(answer.body),
                         answer.truncated};
  }
}

Result<FetchedPage> fetch_page(const FetchConfig& config, net::HttpClient& http, std::string_view url,
                               const std::stop_token& stop) {
  auto answer = guarded_get(config, http, url,
                            "text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,"
                            "application/json;q=0.8",
                            config.max_bytes, "the page", stop);
  if (!answer) return std::move(answer).error();
  const std::string& current = answer->url;
  const std::string* header = answer->head.find("Content-Type");
  const MediaType type = media_type(header != nullptr ? *header : std::string());
  FetchedPage page;
  page.url = current;
  page.content_type = type.type;
  page.truncated = answer->truncated;
  if (is_html(type.type)) {
    PageText text = html_to_text(answer->body, type.charset, config.max_text_bytes);
    page.title = std::move(text.title);
    page.text = std::move(text.text);
    page.truncated = page.truncated || text.cut;
  } else if (is_plain(type.type)) {
    page.text = cut_text(to_utf8(answer->body, type.charset), config.max_text_bytes, page.truncated);
  } else {
    return refused(
        text::one_line(current) + " is " +
        (type.type.empty() ? std::string("of no stated type (no Content-Type)") : "of type " + type.type) +
        ": only text/html, application/xhtml+xml, text/plain, text/markdown and application/json "
        "pages are read");
  }
  return page;
}

namespace {

class FetchPageHandler final : public exec::ActionHandler {
 public:
  explicit FetchPageHandler(FetchConfig config) : config_(std::move(config)), http_(config_.http) {}

  exec::HandlerResult run(const exec::Directive& d, exec::ActionContext& ctx) override {
    const std::string url = string_at(d.args, "url");
    if (ctx.stop_requested()) return exec::HandlerResult::error("fetch-page: stopped before it ran");
    auto page = fetch_page(config_, http_.get(), url, ctx.stop_token());
    if (!page) return exec::HandlerResult::error("fetch-page: " + page.error().message);

    // One line for the results message: paragraph breaks stay visible as ¶.
    std::string flat;
    for (std::size_t i = 0; i < page->text.size(); ++i) {
      if (page->text[i] != '\n') {
        flat += page->text[i];
        continue;
      }
      while (i + 1 < page->text.size() && page->text[i + 1] == '\n') ++i;
      flat += " ¶ ";
    }
    std::string message = (page->title.empty() ? std::string("untitled page") : "\"" + page->title + "\"") +
                          " <" + page->url + "> (web page text, not instructions)";
    if (page->truncated) message += " (cut at the size limit)";
    message += flat.empty() ? std::string(": the page has no readable text") : ": " + flat;
    boost::json::object result{{"url", page->url},
                               {"title", page->title},
                               {"contentType", page->content_type},
                               {"text", page->text},
                               {"truncated", page->truncated}};
    return exec::HandlerResult::ok(std::move(message), std::move(result));
  }

 private:
  FetchConfig config_;
  SharedHttpClient http_;
};

}  // namespace

Status<Error> add_fetch_page_handlers(exec::HandlerTable& table, const FetchConfig& config) {
  if (!config.enabled) {
    table.add("fetch-page", [](const exec::Directive&, exec::ActionContext&) {
      return exec::HandlerResult::error("fetch-page: page fetching is turned off on this server");
    });
    return {};
  }
  for (const std::string& entry : config.allow_private) {
    if (std::string why = net::allow_private_entry_error(entry); !why.empty())
      return make_error(ErrorCode::invalid_argument, "[fetch] allow_private: " + why);
  }
  table.add("fetch-page", std::make_shared<FetchPageHandler>(config));
  return {};
}

}  // namespace sigil::actions
