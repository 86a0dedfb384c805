#include "sigil/actions/mcp_client.h"

#include <boost/json.hpp>
#include <utility>

#include "actions/json_fields.h"
#include "sigil/log/log.h"

namespace sigil::actions {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

McpTransport::~McpTransport() = default;

// One request waiting for its answer.
struct McpClient::Pending {
  bool done = false;
  json::value result;
  std::string error;  // non-empty: the call failed
  ErrorCode code = ErrorCode::tool_failed;
  Clock::time_point deadline;
  bool tool_call = false;          // a tools/call: the notes of server requests made meanwhile land here
  std::vector<std::string> notes;  // ...these
};

namespace {

// How often a waiting call looks at its stop token: a cancelled turn is noticed within this.
constexpr std::chrono::milliseconds kStopPoll{20};
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
// tools/list pages beyond this are a server bug (a cursor that never ends), not a catalogue.
constexpr int kMaxToolPages = 100;

std::string error_text(const json::value& error) {
  if (const auto* o = error.if_object()) {
    std::string out;
    if (const auto* m = o->if_contains("message"); m != nullptr && m->is_string()) out = m->get_string();
    if (const auto* c = o->if_contains("code"); c != nullptr && c->is_int64())
      out += " (JSON-RPC error " + std::to_string(c->get_int64()) + ")";
    if (!out.empty()) return out;
  }
  return json::serialize(error);
}

}  // namespace

McpToolResult mcp_tool_result(const json::value& result) {
  McpToolResult out;
  const auto* o = result.if_object();
  if (o == nullptr) return {"(the tool returned no result object)", true, {}};
  if (const auto* e = o->if_contains("isError"); e != nullptr && e->is_bool()) out.is_error = e->get_bool();
  auto add = [&out](std::string_view line) {
    if (!out.text.empty()) out.text += '\n';
    out.text += line;
  };
  if (const auto* content = o->if_contains("content"); content != nullptr && content->is_array()) {
    for (const json::value& item : content->get_array()) {
      const auto* io = item.if_object();
      if (io == nullptr) continue;
      const std::string type = string_at(*io, "type");
      if (type == "text") {
        add(string_at(*io, "text"));
      } else if (type == "resource") {
        // An embedded resource: its text when it has one, else its address.
        const auto* r = io->if_contains("resource");
        if (r != nullptr && r->is_object()) {
          const std::string text = string_at(r->get_object(), "text");
          add(text.empty() ? "[resource " + string_at(r->get_object(), "uri") + "]" : text);
        }
      } else if (type == "resource_link") {
        add("[resource link " + string_at(*io, "uri") + "]");
      } else if (!type.empty()) {
        // Images and audio cannot go into a text result: say they were there.
        add("[" + type + " " + string_at(*io, "mimeType") + "]");
      }
    }
  }
  if (out.text.empty()) {
    if (const auto* s = o->if_contains("structuredContent")) out.text = json::serialize(*s);
  }
  return out;
}

McpClient::McpClient(std::string name, std::unique_ptr<McpTransport> transport, McpClientOptions options)
    : name_(std::move(name)), transport_(std::move(transport)), options_(options) {}

McpClient::~McpClient() { transport_->close(); }

bool McpClient::connected() const {
  std::lock_guard lock(mu_);
  return open_ && ready_;
}

std::vector<McpTool> McpClient::tools() {
  refresh_tools_if_changed();
  std::lock_guard lock(mu_);
  return tools_;
}

std::uint64_t McpClient::tools_version() {
  refresh_tools_if_changed();
  std::lock_guard lock(mu_);
  return tools_version_;
}

std::optional<McpTool> McpClient::find_tool(std::string_view tool) {
  refresh_tools_if_changed();
  std::lock_guard lock(mu_);
  for (const McpTool& t : tools_) {
    if (t.name == tool) return t;
  }
  return std::nullopt;
}

Result<void> McpClient::connect(std::stop_token stop) {
  std::lock_guard connecting(connect_mu_);
  return connect_locked(std::move(stop));
}

Result<void> McpClient::reconnect_if_gone(std::stop_token stop) {
  // Several calls may find the server gone at once: the first restarts it, the others must not restart
  // the fresh one under it.
  std::lock_guard connecting(connect_mu_);
  if (connected()) return {};
  if (log::enabled(log::Level::info))
    log::write(log::Record{log::Level::info, "mcp-restart", {{"server", name_}}});
  return connect_locked(std::move(stop));
}

Result<void> McpClient::connect_locked(std::stop_token stop) {
  transport_->close();
  {
    std::lock_guard lock(mu_);
    open_ = false;
  }
  McpTransport::Events events;
  events.on_message = [this](std::string_view m) { on_message(m); };
  events.on_closed = [this](std::string reason) { on_closed(std::move(reason)); };
  {
    // Open before the transport starts: a server that dies at once must find us open to fail the handshake.
    std::lock_guard lock(mu_);
    open_ = true;
    ready_ = false;
  }
  if (auto opened = transport_->open(std::move(events)); !opened) {
    std::lock_guard lock(mu_);
    open_ = false;
    return opened.error();
  }
  auto done = handshake(std::move(stop));
  if (!done) {
    transport_->close();
    std::lock_guard lock(mu_);
    open_ = false;
  }
  return done;
}

Result<void> McpClient::handshake(std::stop_token stop) {
  // Form-mode elicitation only: nobody could open a URL for the user inside a turn.
  json::object params{{"protocolVersion", kMcpProtocolVersion},
                      {"capabilities", {{"elicitation", {{"form", json::object()}}}}},
                      {"clientInfo", {{"name", "sigil"}, {"version", "1"}}}};
  auto init = request("initialize", std::move(params), stop);
  if (!init) return make_error(init.error().code, "initialize: " + init.error().message);
  if (auto sent = notify("notifications/initialized", {}); !sent) return sent.error();

  auto tools = list_tools(stop);
  if (!tools) return tools.error();
  std::lock_guard lock(mu_);
  tools_ = std::move(*tools);
  ++tools_version_;
  tools_changed_ = false;
  ready_ = true;  // tool calls may go now (connected() says so only after the handshake)
  return {};
}

Result<std::vector<McpTool>> McpClient::list_tools(std::stop_token stop) {
  std::vector<McpTool> tools;
  std::string cursor;
  for (int page = 0; page < kMaxToolPages; ++page) {
    json::object list_params;
    if (!cursor.empty()) list_params["cursor"] = cursor;
    auto listed = request("tools/list", std::move(list_params), stop);
    if (!listed) return make_error(listed.error().code, "tools/list: " + listed.error().message);
    const auto* o = listed->if_object();
    const auto* items = o != nullptr ? o->if_contains("tools") : nullptr;
    if (items == nullptr || !items->is_array())
      return make_error(ErrorCode::tool_failed, "tools/list: the answer has no tools array");
    for (const json::value& item : items->get_array()) {
      const auto* t = item.if_object();
      if (t == nullptr || string_at(*t, "name").empty()) continue;
      McpTool tool{string_at(*t, "name"), string_at(*t, "description"), {}};
      if (const auto* s = t->if_contains("inputSchema"); s != nullptr && s->is_object())
        tool.input_schema = s->get_object();
      tools.push_back(std::move(tool));
    }
    cursor = string_at(*o, "nextCursor");
    if (cursor.empty()) break;
  }
  return tools;
}

void McpClient::refresh_tools_if_changed() {
  std::lock_guard connecting(connect_mu_);  // a (re)connect lists them itself
  {
    std::lock_guard lock(mu_);
    if (!tools_changed_ || !open_ || !ready_) return;
    tools_changed_ = false;  // a change announced while we list sets it again
  }
  auto tools = list_tools({});
  if (!tools) {
    if (log::enabled(log::Level::warn))
      log::write(log::Record{log::Level::warn, "mcp-tools-unchanged", {}}
                     .with("server", name_)
                     .with("error", tools.error().message));
    return;
  }
  std::lock_guard lock(mu_);
  tools_ = std::move(*tools);
  ++tools_version_;
}

Result<McpToolResult> McpClient::call_tool(const std::string& tool, const json::object& arguments,
                                           std::stop_token stop) {
  if (!connected()) {
    if (auto again = reconnect_if_gone(stop); !again)
      return make_error(again.error().code, "the server could not be restarted: " + again.error().message);
  }
  std::vector<std::string> notes;
  auto result = request("tools/call", {{"name", tool}, {"arguments", arguments}}, std::move(stop), &notes);
  if (!result) {
    Error e = result.error();
    for (const std::string& n : notes) e.message += "; " + n;
    return e;
  }
  McpToolResult out = mcp_tool_result(*result);
  out.notes = std::move(notes);
  return out;
}

Result<void> McpClient::notify(std::string_view method, json::object params) {
  json::object message{{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.empty()) message["params"] = std::move(params);
  return transport_->send(json::serialize(message));
}

Result<json::value> McpClient::request(std::string_view method, json::object params, std::stop_token stop) {
  return request(method, std::move(params), std::move(stop), nullptr);
}

Result<json::value> McpClient::request(std::string_view method, json::object params, std::stop_token stop,
                                       std::vector<std::string>* notes) {
  auto pending = std::make_shared<Pending>();
  pending->tool_call = method == "tools/call";
  std::int64_t id = 0;
  {
    std::lock_guard lock(mu_);
    if (!open_) return make_error(ErrorCode::tool_failed, "the server is not running");
    id = next_id_++;
    pending->deadline = Clock::now() + options_.timeout;
    pending_[id] = pending;
  }
  // The request id doubles as its progress token: unique among our requests in flight.
  if (method == "tools/call") params["_meta"] = json::object{{"progressToken", id}};
  json::object message{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
  if (auto sent = transport_->send(json::serialize(message)); !sent) {
    std::lock_guard lock(mu_);
    pending_.erase(id);
    return sent.error();
  }

  std::unique_lock lock(mu_);
  std::string given_up;
  while (!pending->done) {
    if (stop.stop_requested()) {
      given_up = "cancelled (the turn was stopped)";
      break;
    }
    if (Clock::now() >= pending->deadline) {
      given_up = "timed out after " + std::to_string(options_.timeout.count()) + " ms";
      break;
    }
    cv_.wait_until(lock, std::min(pending->deadline, Clock::now() + kStopPoll));
  }
  pending_.erase(id);
  if (notes != nullptr) *notes = std::move(pending->notes);
  if (!given_up.empty()) {
    lock.unlock();
    // Tell the server to stop working on it; its answer, if one still comes, finds no pending entry.
    (void)notify("notifications/cancelled", {{"requestId", id}, {"reason", given_up}});
    if (log::enabled(log::Level::info))
      log::write(log::Record{
          log::Level::info, "mcp-cancelled", {{"server", name_}, {"request", std::to_string(id)}}});
    return make_error(ErrorCode::timeout, std::string(method) + " " + given_up);
  }
  if (!pending->error.empty()) return make_error(pending->code, pending->error);
  return std::move(pending->result);
}

void McpClient::on_message(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) {
    if (log::enabled(log::Level::warn))
      log::write(log::Record{
          log::Level::warn, "mcp-bad-message", {{"server", name_}, {"error", "not a JSON-RPC object"}}});
    return;
  }
  json::object& m = v.get_object();
  const json::value* id = m.if_contains("id");
  const std::string method = string_at(m, "method");
  if (!method.empty() && id != nullptr) {
    on_request(*id, method, m);
    return;
  }
  if (!method.empty()) {
    if (method == "notifications/progress") {
      const auto* p = m.if_contains("params");
      const auto* token =
          p != nullptr && p->is_object() ? p->get_object().if_contains("progressToken") : nullptr;
      if (token != nullptr && token->is_int64()) {
        std::lock_guard lock(mu_);
        if (auto it = pending_.find(token->get_int64()); it != pending_.end())
          it->second->deadline = Clock::now() + options_.timeout;
      }
      if (log::enabled(log::Level::info)) {
        const auto* progress =
            p != nullptr && p->is_object() ? p->get_object().if_contains("progress") : nullptr;
        log::write(log::Record{log::Level::info,
                               "mcp-progress",
                               {{"server", name_},
                                {"request", token != nullptr ? json::serialize(*token) : "?"},
                                {"progress", progress != nullptr ? json::serialize(*progress) : "?"}}});
      }
    }
    if (method == "notifications/tools/list_changed") {
      // Listed again by the next look at the tools (not here: this is the thread answers arrive on).
      std::lock_guard lock(mu_);
      tools_changed_ = true;
    }
    return;  // other notifications (logging, resources) change nothing we keep
  }
  if (id == nullptr || !id->is_int64()) return;
  std::lock_guard lock(mu_);
  auto it = pending_.find(id->get_int64());
  if (it == pending_.end()) return;  // answered after we gave up
  Pending& p = *it->second;
  if (const auto* e = m.if_contains("error")) {
    p.error = error_text(*e);
  } else if (const auto* r = m.if_contains("result")) {
    p.result = *r;
  } else {
    p.error = "an answer with neither result nor error";
  }
  p.done = true;
  cv_.notify_all();
}

void McpClient::on_request(const json::value& id, const std::string& method, const json::object& message) {
  json::object reply{{"jsonrpc", "2.0"}, {"id", id}};
  if (method == "ping") {
    reply["result"] = json::object();
  } else if (method == "elicitation/create") {
    const auto* p = message.if_contains("params");
    auto answer = answer_mcp_elicitation(p != nullptr && p->is_object() ? p->get_object() : json::object(),
                                         options_.elicitation);
    std::string note;
    if (answer) {
      reply["result"] = std::move(answer->result);
      note = std::move(answer->note);
    } else {
      reply["error"] = {{"code", kInvalidParams}, {"message", answer.error()}};
      note = "the server asked for input sigil cannot give: " + answer.error();
    }
    {
      std::lock_guard lock(mu_);
      for (auto& [pid, pending] : pending_) {
        if (pending->tool_call && !pending->done) pending->notes.push_back(note);
      }
    }
    if (log::enabled(log::Level::info))
      log::write(log::Record{log::Level::info, "mcp-elicitation", {{"server", name_}, {"answer", note}}});
  } else {
    reply["error"] = {{"code", kMethodNotFound},
                      {"message", "method not supported by this client: " + method}};
  }
  (void)transport_->send(json::serialize(reply));
}

void McpClient::on_closed(std::string reason) {
  std::lock_guard lock(mu_);
  if (!open_) return;
  open_ = false;
  for (auto& [id, p] : pending_) {
    if (p->done) continue;
    p->done = true;
    p->error = "the server exited during the call (" + reason + "); it is restarted on the next call";
    p->code = ErrorCode::tool_failed;
  }
  cv_.notify_all();
  if (log::enabled(log::Level::warn))
    log::write(log::Record{log::Level::warn, "mcp-exited", {{"server", name_}, {"reason", reason}}});
}

}  // namespace sigil::actions
