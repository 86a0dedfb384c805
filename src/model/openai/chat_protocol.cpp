#include "model/openai/chat_protocol.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

namespace sigil::model::openai {

namespace json = boost::json;

namespace {

// One line, bounded: messages go into logs and back to the model.
std::string one_line(std::string_view text, std::size_t limit = 300) {
  std::string out;
  for (char c : text) {
    if (out.size() >= limit) {
      out += "...";
      break;
    }
    out.push_back(c == '\n' || c == '\r' || c == '\t' ? ' ' : c);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

const json::value* find(const json::object& object, std::string_view key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &it->value();
}

std::string string_or_empty(const json::value* value) {
  if (value == nullptr || !value->is_string()) return {};
  return std::string(value->get_string());
}

}  // namespace

json::object make_request_body(const ChatRequest& request, std::string_view default_model) {
  json::object body;
  body["model"] = request.model.empty() ? default_model : std::string_view(request.model);
  json::array messages;
  for (const ChatMessage& m : request.messages) {
    json::object message;
    message["role"] = m.role;
    // An assistant turn that only called tools has null content in the API's own transcripts.
    if (m.content.empty() && !m.tool_calls.empty()) {
      message["content"] = nullptr;
    } else if (!m.image_urls.empty()) {
      // Vision content parts: the text first, then each picture (OpenAI's image_url part).
      json::array parts;
      if (!m.content.empty()) parts.push_back(json::object{{"type", "text"}, {"text", m.content}});
      for (const std::string& url : m.image_urls)
        parts.push_back(json::object{{"type", "image_url"}, {"image_url", json::object{{"url", url}}}});
      message["content"] = std::move(parts);
    } else {
      message["content"] = m.content;
    }
    if (!m.tool_call_id.empty()) message["tool_call_id"] = m.tool_call_id;
    if (!m.tool_calls.empty()) {
      json::array calls;
      for (const ToolCall& call : m.tool_calls) {
        calls.push_back(json::object{
            {"id", call.id},
            {"type", "function"},
            {"function", json::object{{"name", call.name}, {"arguments", call.arguments_json}}},
        });
      }
      message["tool_calls"] = std::move(calls);
    }
    messages.push_back(std::move(message));
  }
  body["messages"] = std::move(messages);
  body["stream"] = true;
  if (request.tools && !request.tools->empty()) body["tools"] = *request.tools;
  if (request.max_tokens) body["max_tokens"] = *request.max_tokens;
  if (request.temperature) body["temperature"] = *request.temperature;
  return body;
}

FinishReason map_finish_reason(std::string_view reason) noexcept {
  if (reason == "length") return FinishReason::length;
  if (reason == "tool_calls" || reason == "function_call") return FinishReason::tool_calls;
  if (reason == "content_filter") return FinishReason::content_filter;
  return FinishReason::stop;
}

std::string api_error_message(std::string_view body) {
  json::error_code ec;
  json::value parsed = json::parse(body, ec);
  if (!ec && parsed.is_object()) {
    const json::object& object = parsed.get_object();
    if (const json::value* error = find(object, "error")) {
      if (error->is_object()) {
        std::string message = string_or_empty(find(error->get_object(), "message"));
        if (!message.empty()) return one_line(message);
      } else if (error->is_string() && !error->get_string().empty()) {
        return one_line(error->get_string());
      }
    }
    std::string message = string_or_empty(find(object, "message"));
    if (!message.empty()) return one_line(message);
  }
  if (body.empty()) return "empty body";
  return one_line(body, 200);
}

ChunkDecoder::Step ChunkDecoder::decode(std::string_view data) {
  Step step;
  std::string_view trimmed = data;
  while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\n')) trimmed.remove_suffix(1);
  if (trimmed == "[DONE]") {
    step.done = true;
    return step;
  }
  json::error_code ec;
  json::value parsed = json::parse(data, ec);
  if (ec || !parsed.is_object()) {
    step.error = "model sent a stream chunk that is not a JSON object: " + one_line(data, 120);
    return step;
  }
  const json::object& chunk = parsed.get_object();
  if (const json::value* error = find(chunk, "error"); error != nullptr && !error->is_null()) {
    step.error = "model stream reported an error: " + api_error_message(json::serialize(parsed));
    return step;
  }
  const json::value* choices = find(chunk, "choices");
  // Usage-only chunks have an empty choices array: nothing to do.
  if (choices == nullptr || !choices->is_array() || choices->get_array().empty()) return step;
  const json::value& first = choices->get_array().front();
  if (!first.is_object()) return step;
  const json::object& choice = first.get_object();
  if (const json::value* delta = find(choice, "delta"); delta != nullptr && delta->is_object()) {
    const json::object& d = delta->get_object();
    step.text = string_or_empty(find(d, "content"));
    if (const json::value* calls = find(d, "tool_calls"); calls != nullptr && calls->is_array()) {
      for (const json::value& fragment : calls->get_array()) {
        if (!fragment.is_object()) continue;
        const json::object& f = fragment.get_object();
        std::int64_t index = 0;
        if (const json::value* i = find(f, "index"); i != nullptr && i->is_int64()) index = i->get_int64();
        ToolCall& call = calls_[index];
        // Fragments after the first usually repeat nothing but the arguments; keep the first id/name.
        if (std::string id = string_or_empty(find(f, "id")); !id.empty() && call.id.empty()) call.id = id;
        if (const json::value* fn = find(f, "function"); fn != nullptr && fn->is_object()) {
          const json::object& function = fn->get_object();
          call.name += string_or_empty(find(function, "name"));
          call.arguments_json += string_or_empty(find(function, "arguments"));
        }
      }
    }
  }
  if (const json::value* reason = find(choice, "finish_reason"); reason != nullptr && reason->is_string()) {
    step.finish = map_finish_reason(reason->get_string());
  }
  return step;
}

std::vector<ToolCall> ChunkDecoder::take_tool_calls() {
  std::vector<ToolCall> out;
  out.reserve(calls_.size());
  for (auto& [index, call] : calls_) out.push_back(std::move(call));
  calls_.clear();
  return out;
}

}  // namespace sigil::model::openai
