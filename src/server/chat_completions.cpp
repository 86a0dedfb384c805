#include "server/chat_completions.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <limits>
#include <utility>

#include "server/delivery_json.h"
#include "server/request_checks.h"
#include "sigil/store/sha256.h"
#include "sigil/text/json_fields.h"
#include "sigil/text/random_id.h"

namespace sigil::server::completions {
namespace {

namespace json = boost::json;

constexpr std::string_view kToolsRefused =
    "sigil runs its own actions (the directives the model writes, and native tool calls it offers the "
    "model itself); caller-defined tools are not supported on this endpoint";

ApiError bad(std::string message, std::string param = {}, std::string code = {}) {
  return ApiError{400, std::move(message), "invalid_request_error", std::move(param), std::move(code)};
}

ApiError unsupported(std::string param, std::string why) {
  return bad("'" + param + "' is not supported by sigil: " + why, param, "unsupported_parameter");
}

ApiError wrong_type(const std::string& param, std::string_view expected, const json::value& got) {
  return bad("Invalid type for '" + param + "': expected " + std::string(expected) + ", but got " +
                 std::string(text::json_kind_name(got)) + " instead.",
             param, "invalid_type");
}

// A value that is absent or JSON null counts as "not given", like OpenAI's API treats it.
const json::value* given(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && !v->is_null() ? v : nullptr;
}

std::optional<std::int64_t> as_integer(const json::value& v) {
  if (v.is_int64()) return v.as_int64();
  if (v.is_uint64()) {
    return v.as_uint64() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
               ? std::numeric_limits<std::int64_t>::max()
               : static_cast<std::int64_t>(v.as_uint64());
  }
  // 2.0 is an integer to a JavaScript client.
  if (v.is_double() && std::isfinite(v.as_double()) && v.as_double() == std::floor(v.as_double()) &&
      std::abs(v.as_double()) < 9e15) {
    return static_cast<std::int64_t>(v.as_double());
  }
  return std::nullopt;
}

std::optional<double> as_number(const json::value& v) {
  if (v.is_double()) return v.as_double();
  if (v.is_int64()) return static_cast<double>(v.as_int64());
  if (v.is_uint64()) return static_cast<double>(v.as_uint64());
  return std::nullopt;
}

// The text of one message's content: a string, or an array of {"type":"text","text":...} parts joined
// with line breaks (parts are separate pieces of text; gluing them would merge words).
std::optional<ApiError> message_content(const json::value& content, const std::string& where,
                                        std::string& out) {
  if (content.is_string()) {
    out = std::string(content.as_string());
    return std::nullopt;
  }
  if (!content.is_array()) return wrong_type(where, "a string or an array of content parts", content);
  const json::array& parts = content.as_array();
  for (std::size_t j = 0; j < parts.size(); ++j) {
    const std::string part = where + "[" + std::to_string(j) + "]";
    if (!parts[j].is_object()) return wrong_type(part, "an object", parts[j]);
    const json::object& p = parts[j].as_object();
    const json::value* type = p.if_contains("type");
    if (type == nullptr || !type->is_string())
      return bad("Missing required parameter: '" + part + ".type'.", part + ".type",
                 "missing_required_parameter");
    if (type->as_string() != "text") {
      return bad("content parts of type '" + std::string(type->as_string()) +
                     "' are not supported by sigil: only text parts ({\"type\": \"text\", \"text\": ...})",
                 part + ".type", "unsupported_value");
    }
    const json::value* text = p.if_contains("text");
    if (text == nullptr || !text->is_string()) {
      return text == nullptr ? bad("Missing required parameter: '" + part + ".text'.", part + ".text",
                                   "missing_required_parameter")
                             : wrong_type(part + ".text", "a string", *text);
    }
    if (j > 0) out += '\n';
    out.append(text->as_string());
  }
  return std::nullopt;
}

std::optional<ApiError> parse_messages(const json::value* value, std::vector<model::ChatMessage>& out) {
  if (value == nullptr)
    return bad("Missing required parameter: 'messages'.", "messages", "missing_required_parameter");
  if (!value->is_array()) return wrong_type("messages", "an array", *value);
  const json::array& messages = value->as_array();
  if (messages.empty()) {
    return bad("Invalid 'messages': empty array. Expected an array with minimum length 1.", "messages",
               "empty_array");
  }
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const std::string where = "messages[" + std::to_string(i) + "]";
    if (!messages[i].is_object()) return wrong_type(where, "an object", messages[i]);
    const json::object& m = messages[i].as_object();
    const json::value* role = m.if_contains("role");
    if (role == nullptr) {
      return bad("Missing required parameter: '" + where + ".role'.", where + ".role",
                 "missing_required_parameter");
    }
    if (!role->is_string()) return wrong_type(where + ".role", "a string", *role);
    const std::string_view r = role->as_string();
    model::ChatMessage message;
    if (r == "system" || r == "developer") {
      message.role = "system";  // "developer" is OpenAI's newer name for the same thing
    } else if (r == "user" || r == "assistant") {
      message.role = std::string(r);
    } else if (r == "tool" || r == "function") {
      return bad("role '" + std::string(r) + "' is not supported: " + std::string(kToolsRefused),
                 where + ".role", "unsupported_value");
    } else {
      return bad("Invalid value: '" + std::string(r) +
                     "'. Supported values are: 'system', 'developer', 'user' and 'assistant'.",
                 where + ".role", "invalid_value");
    }
    if (given(m, "tool_calls") != nullptr || given(m, "function_call") != nullptr) {
      return bad(where + " has tool calls: " + std::string(kToolsRefused), where + ".tool_calls",
                 "unsupported_parameter");
    }
    if (given(m, "audio") != nullptr) return unsupported(where + ".audio", "only text messages");
    const json::value* content = given(m, "content");
    if (content == nullptr) {
      return bad("Missing required parameter: '" + where + ".content'.", where + ".content",
                 "missing_required_parameter");
    }
    if (auto error = message_content(*content, where + ".content", message.content)) return error;
    out.push_back(std::move(message));
  }
  return std::nullopt;
}

// Users are stored and shown; control characters would corrupt logs and the web client.
bool valid_user(std::string_view user) {
  if (user.empty() || user.size() > 256) return false;
  return std::none_of(user.begin(), user.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
}

bool valid_idempotency_key(std::string_view key) {
  if (key.empty() || key.size() > 255) return false;
  return std::all_of(key.begin(), key.end(), [](char c) { return c >= 0x20 && c <= 0x7e; });
}

// Random, never a counter (text::random_id): the executor's exactly-once keys include the turn id, and a
// restarted server must never reuse an earlier process's results.
std::string random_turn_id() { return text::random_id("oai-", 32); }

// OpenAI's finish reasons. Native tool calls are sigil's own business (the agent answers them and calls the
// model again), so a turn that ended on one still just stopped as far as the caller is concerned.
std::string_view finish_reason(const agent::TurnSummary& summary) {
  if (summary.calls.empty()) return "stop";
  switch (summary.calls.back().finish) {
    case model::FinishReason::length:
      return "length";
    case model::FinishReason::content_filter:
      return "content_filter";
    default:
      return "stop";
  }
}

bool failed(const agent::TurnSummary& summary) {
  return summary.status == agent::TurnStatus::ModelError || summary.status == agent::TurnStatus::StoreError;
}

ApiError turn_error(const agent::TurnSummary& summary) {
  ApiError e;
  std::string detail;
  for (const std::string& d : summary.diagnostics) {
    if (d.starts_with("model-error: ") || d.starts_with("store: ")) {
      detail = d;
      break;
    }
  }
  if (summary.status == agent::TurnStatus::StoreError) {
    e.status = 500;
    e.type = "server_error";
    e.code = "store_error";
    e.message = "sigil could not use its store: " + detail;
  } else {
    e.status = 502;
    e.type = "server_error";
    e.code = detail == "model-error: cancelled" ? "cancelled" : "model_error";
    e.message = "the model call failed: " + (detail.empty() ? std::string("unknown error") : detail);
  }
  return e;
}

}  // namespace

const std::string_view kStreamHead =
    "HTTP/1.1 200 OK\r\n"
    "Content-Type: text/event-stream; charset=utf-8\r\n"
    "Cache-Control: no-cache\r\n"
    "X-Content-Type-Options: nosniff\r\n"
    "Connection: close\r\n\r\n";

json::object error_object(const ApiError& e) {
  json::object inner;
  inner["message"] = e.message;
  inner["type"] = e.type;
  inner["param"] = e.param.empty() ? json::value(nullptr) : json::value(e.param);
  inner["code"] = e.code.empty() ? json::value(nullptr) : json::value(e.code);
  json::object out;
  out["error"] = std::move(inner);
  return out;
}

std::string error_body(const ApiError& e) { return json::serialize(error_object(e)); }

ParseResult parse_request(std::string_view body) {
  ParseResult result;
  auto fail = [&result](ApiError e) {
    result.error = std::move(e);
    return result;
  };
  boost::system::error_code ec;
  json::value parsed = json::parse(body, ec);
  if (ec || !parsed.is_object()) {
    return fail(
        bad("We could not parse the JSON body of your request: it must be a JSON object like "
            "{\"model\": \"...\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}."));
  }
  const json::object& o = parsed.as_object();
  ChatRequest req;

  const json::value* model = given(o, "model");
  if (model == nullptr)
    return fail(bad("you must provide a model parameter", "model", "missing_required_parameter"));
  if (!model->is_string()) return fail(wrong_type("model", "a string", *model));
  if (model->as_string().empty())
    return fail(bad("you must provide a model parameter", "model", "invalid_value"));
  req.model = std::string(model->as_string());

  if (auto error = parse_messages(given(o, "messages"), req.messages)) return fail(std::move(*error));

  // What sigil cannot honour is refused, never silently ignored: a caller relying on it would get
  // something else than asked for.
  for (std::string_view key : {"tools", "functions"}) {
    if (given(o, key) != nullptr) return fail(unsupported(std::string(key), std::string(kToolsRefused)));
  }
  for (std::string_view key : {"tool_choice", "function_call"}) {
    if (const json::value* v = given(o, key); v != nullptr && !(v->is_string() && v->as_string() == "none")) {
      return fail(unsupported(std::string(key), std::string(kToolsRefused)));
    }
  }
  if (const json::value* n = given(o, "n")) {
    auto value = as_integer(*n);
    if (!value) return fail(wrong_type("n", "an integer", *n));
    if (*value < 1)
      return fail(bad("Invalid 'n': integer below minimum value 1.", "n", "integer_below_min_value"));
    if (*value > 1) {
      return fail(
          bad("'n' greater than 1 is not supported by sigil: one turn gives one answer (its directives "
              "run once)",
              "n", "unsupported_value"));
    }
  }
  if (const json::value* stop = given(o, "stop")) {
    const bool empty =
        (stop->is_array() && stop->as_array().empty()) || (stop->is_string() && stop->as_string().empty());
    if (!empty) {
      return fail(
          unsupported("stop", "stop sequences would cut directives in half; sigil parses the whole reply"));
    }
  }
  if (const json::value* lp = given(o, "logprobs"); lp != nullptr && !(lp->is_bool() && !lp->as_bool())) {
    return fail(unsupported("logprobs", "the content is the parsed clean text, not the model's tokens"));
  }
  if (given(o, "top_logprobs") != nullptr) {
    return fail(unsupported("top_logprobs", "the content is the parsed clean text, not the model's tokens"));
  }
  if (const json::value* rf = given(o, "response_format")) {
    const json::value* type = rf->is_object() ? rf->as_object().if_contains("type") : nullptr;
    if (type == nullptr || !type->is_string() || type->as_string() != "text") {
      return fail(
          unsupported("response_format", "only {\"type\": \"text\"}; the reply is parsed for directives"));
    }
  }
  if (const json::value* modalities = given(o, "modalities")) {
    const bool text_only =
        modalities->is_array() &&
        std::all_of(modalities->as_array().begin(), modalities->as_array().end(),
                    [](const json::value& m) { return m.is_string() && m.as_string() == "text"; });
    if (!text_only) return fail(unsupported("modalities", "only [\"text\"]"));
  }
  for (std::string_view key : {"audio", "prediction", "web_search_options"}) {
    if (given(o, key) != nullptr) return fail(unsupported(std::string(key), "text chat only"));
  }

  if (const json::value* stream = given(o, "stream")) {
    if (!stream->is_bool()) return fail(wrong_type("stream", "a boolean", *stream));
    req.stream = stream->as_bool();
  }
  if (const json::value* so = given(o, "stream_options")) {
    if (!req.stream) {
      return fail(bad("The 'stream_options' parameter is only allowed when 'stream' is enabled.",
                      "stream_options", "invalid_value"));
    }
    if (!so->is_object()) return fail(wrong_type("stream_options", "an object", *so));
    if (const json::value* iu = given(so->as_object(), "include_usage")) {
      if (!iu->is_bool()) return fail(wrong_type("stream_options.include_usage", "a boolean", *iu));
      req.include_usage = iu->as_bool();
    }
  }

  for (std::string_view key : {"max_tokens", "max_completion_tokens"}) {
    const json::value* v = given(o, key);
    if (v == nullptr) continue;
    auto value = as_integer(*v);
    if (!value) return fail(wrong_type(std::string(key), "an integer", *v));
    if (*value < 1) {
      return fail(bad("Invalid '" + std::string(key) + "': integer below minimum value 1.", std::string(key),
                      "integer_below_min_value"));
    }
    const int clamped = static_cast<int>(std::min<std::int64_t>(*value, std::numeric_limits<int>::max()));
    if (req.max_tokens && *req.max_tokens != clamped) {
      return fail(bad("'max_tokens' and 'max_completion_tokens' differ; give one of them", std::string(key),
                      "invalid_value"));
    }
    req.max_tokens = clamped;
  }
  if (const json::value* t = given(o, "temperature")) {
    auto value = as_number(*t);
    if (!value) return fail(wrong_type("temperature", "a number", *t));
    if (!(*value >= 0.0 && *value <= 2.0)) {
      return fail(bad("Invalid 'temperature': must be between 0 and 2.", "temperature", "invalid_value"));
    }
    req.temperature = *value;
  }
  if (const json::value* u = given(o, "user")) {
    if (!u->is_string()) return fail(wrong_type("user", "a string", *u));
    req.user = std::string(u->as_string());
  }
  result.request = std::move(req);
  return result;
}

TargetResult resolve_target(const ChatRequest& request, const RequestHeaders& headers) {
  TargetResult result;
  TurnTarget t;
  if (!request.user.empty() && !headers.user.empty() && request.user != headers.user) {
    result.error = bad("the body's 'user' and the X-Sigil-User header name different users; give one", "user",
                       "invalid_value");
    return result;
  }
  t.user = !request.user.empty() ? request.user : !headers.user.empty() ? headers.user : "openai";
  if (!valid_user(t.user)) {
    result.error =
        bad("the user (body 'user' or X-Sigil-User) must be 1 to 256 bytes without control characters",
            "user", "invalid_value");
    return result;
  }
  t.conversation = headers.conversation.empty() ? "completions" : headers.conversation;
  if (!valid_conversation_id(t.conversation)) {
    result.error = bad("X-Sigil-Conversation must be 1 to 128 of A-Z a-z 0-9 . _ -", {}, "invalid_value");
    return result;
  }
  if (!headers.idempotency_key.empty()) {
    if (!valid_idempotency_key(headers.idempotency_key)) {
      result.error = bad("Idempotency-Key must be 1 to 255 printable ASCII characters", {}, "invalid_value");
      return result;
    }
    // Derived, not the key itself: keys of different users or conversations must not meet in one turn id
    // (turns are cancelled by id), and any key becomes a short, safe id.
    std::string material = t.user;
    material += '\0';
    material += t.conversation;
    material += '\0';
    material += headers.idempotency_key;
    t.turn_id = "oai-" + store::sha256_hex(material).substr(0, 32);
    t.idempotent = true;
  } else {
    t.turn_id = random_turn_id();
  }
  result.target = std::move(t);
  return result;
}

agent::TurnInput turn_input(const ChatRequest& request, const TurnTarget& target) {
  agent::TurnInput input;
  input.user = target.user;
  input.conversation = target.conversation;
  input.turn_id = target.turn_id;
  input.messages = request.messages;
  input.model = request.model;
  input.max_tokens = request.max_tokens;
  input.temperature = request.temperature;
  return input;
}

std::string completion_id(std::string_view turn_id) { return "chatcmpl-" + std::string(turn_id); }

json::object report_json(const agent::TurnSummary& summary, MediaStore* media) {
  json::array diagnostics;
  for (const std::string& d : summary.diagnostics) diagnostics.emplace_back(d);
  json::array calls;
  for (const agent::ModelCallReport& c : summary.calls) {
    json::object call;
    call["call"] = c.call;
    call["finish"] = model::to_string(c.finish);
    if (!c.error.empty()) call["error"] = c.error;
    json::array deliveries;
    for (const exec::Delivery& d : c.report.deliveries) deliveries.push_back(delivery_json(d, media));
    call["deliveries"] = std::move(deliveries);
    json::array results;
    for (const exec::ResultEntry& r : c.report.results) {
      json::object entry{{"ordinal", r.ordinal},
                         {"action", r.action},
                         {"status", exec::to_string(r.status)},
                         {"message", r.message}};
      if (!r.notes.empty()) {
        json::array notes;
        for (const std::string& n : r.notes) notes.emplace_back(n);
        entry["notes"] = std::move(notes);
      }
      results.push_back(std::move(entry));
    }
    call["results"] = std::move(results);
    if (!c.tool_calls.empty()) {
      json::array tools;
      for (const std::string& t : c.tool_calls) tools.emplace_back(t);
      call["tool_calls"] = std::move(tools);
    }
    calls.push_back(std::move(call));
  }
  return json::object{{"turn_id", summary.turn_id},
                      {"status", agent::to_string(summary.status)},
                      {"diagnostics", std::move(diagnostics)},
                      {"calls", std::move(calls)}};
}

// ---- CompletionObserver

CompletionObserver::CompletionObserver(const ChatRequest& request, std::string turn_id, std::int64_t created,
                                       Callbacks callbacks, std::shared_ptr<MediaStore> media)
    : model_(request.model),
      stream_(request.stream),
      include_usage_(request.include_usage),
      id_(completion_id(turn_id)),
      created_(created),
      media_(std::move(media)),
      callbacks_(std::move(callbacks)) {}

json::object CompletionObserver::completion_json(const std::string& id, std::int64_t created,
                                                 const std::string& model, const std::string& content,
                                                 const agent::TurnSummary& summary, MediaStore* media) {
  json::object message{{"role", "assistant"}, {"content", content}, {"refusal", nullptr}};
  json::object choice{{"index", 0},
                      {"message", std::move(message)},
                      {"logprobs", nullptr},
                      {"finish_reason", finish_reason(summary)}};
  return json::object{{"id", id},
                      {"object", "chat.completion"},
                      {"created", created},
                      {"model", model},
                      {"choices", json::array{std::move(choice)}},
                      {"usage", nullptr},  // sigil does not count tokens
                      {"system_fingerprint", nullptr},
                      {"sigil", report_json(summary, media)}};
}

json::object CompletionObserver::chunk(json::value choices) const {
  json::object c{{"id", id_},       {"object", "chat.completion.chunk"}, {"created", created_},
                 {"model", model_}, {"system_fingerprint", nullptr},     {"choices", std::move(choices)}};
  // With include_usage OpenAI puts "usage": null on every chunk; sigil has no counts for the last one either.
  if (include_usage_) c["usage"] = nullptr;
  return c;
}

void CompletionObserver::write_raw(std::string bytes, bool last) {
  std::lock_guard lock(mu_);
  if (callbacks_.write) callbacks_.write(std::move(bytes), last);
}

void CompletionObserver::write_event(const json::value& data, bool last) {
  // boost::json never writes a raw line break, so each event is one `data:` line.
  write_raw("data: " + json::serialize(data) + "\n\n", last);
}

// The head goes out with the first event rather than at once, so a model that fails before saying anything
// gets a plain HTTP error (which every client reports) instead of an error inside a 200 stream.
void CompletionObserver::start_stream() {
  if (started_) return;
  started_ = true;
  write_raw(std::string(kStreamHead), false);
  json::object delta{{"role", "assistant"}, {"content", ""}, {"refusal", nullptr}};
  write_event(chunk(json::array{json::object{
      {"index", 0}, {"delta", std::move(delta)}, {"logprobs", nullptr}, {"finish_reason", nullptr}}}));
}

void CompletionObserver::on_model_call(int /*n*/) { call_start_ = content_.size(); }

// A silent reply (<no-reply/>, spec 7.4): a non-stream answer drops that call's text; a stream cannot take
// back what it sent, so it says so in a choice-less chunk.
void CompletionObserver::on_silence(bool late) {
  if (content_.size() > call_start_) content_.resize(call_start_);
  if (!stream_ || !late) return;
  start_stream();
  json::object c = chunk(json::array{});
  c["sigil"] = json::object{{"silence", json::object{{"late", late}}}};
  write_event(c);
}

// The agent already starts a later call's text with a blank line, so the pieces are joined as they come.
void CompletionObserver::on_text(std::string_view text) {
  if (text.empty()) return;
  content_.append(text);
  if (!stream_) return;
  start_stream();
  write_event(chunk(json::array{json::object{{"index", 0},
                                             {"delta", json::object{{"content", text}}},
                                             {"logprobs", nullptr},
                                             {"finish_reason", nullptr}}}));
}

void CompletionObserver::on_delivery(const exec::Delivery& delivery) {
  if (!stream_) return;  // a non-stream answer carries them in its report
  start_stream();
  json::object c = chunk(json::array{});
  c["sigil"] = json::object{{"delivery", delivery_json(delivery, media_.get())}};
  write_event(c);
}

void CompletionObserver::on_turn_end(const agent::TurnSummary& summary) {
  auto respond = [this](int status, std::string body) {
    std::lock_guard lock(mu_);
    if (callbacks_.respond) callbacks_.respond(status, std::move(body));
  };
  if (failed(summary)) {
    const ApiError e = turn_error(summary);
    json::object body = error_object(e);
    if (stream_ && started_) {
      // Mid-stream there is no status line left to use: OpenAI's clients raise an `error` event.
      write_event(body, true);
    } else {
      // What ran before the failure is still worth knowing (a retry with the same Idempotency-Key will
      // not run it again).
      body["sigil"] = report_json(summary, media_.get());
      respond(e.status, json::serialize(body));
    }
  } else if (!stream_) {
    respond(200, json::serialize(completion_json(id_, created_, model_, content_, summary, media_.get())));
  } else {
    start_stream();
    write_event(chunk(json::array{json::object{{"index", 0},
                                               {"delta", json::object{}},
                                               {"logprobs", nullptr},
                                               {"finish_reason", finish_reason(summary)}}}));
    json::object report = chunk(json::array{});
    report["sigil"] = report_json(summary, media_.get());
    write_event(report);
    write_raw("data: [DONE]\n\n", true);
  }
  // Let go of the connection before `ended`: after it the server may be gone, and the agent may keep this
  // observer longer.
  Callbacks callbacks;
  {
    std::lock_guard lock(mu_);
    callbacks = std::move(callbacks_);
    callbacks_ = {};
  }
  callbacks.write = nullptr;
  callbacks.respond = nullptr;
  if (callbacks.ended) callbacks.ended();
}

}  // namespace sigil::server::completions
