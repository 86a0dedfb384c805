// The gateway's web chat over real loopback sockets: the WebSocket protocol, media downloads, limits and
// stop(). The only test TU with a Beast client (Beast compiles slowly).
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server/gateway_fixture.h"
#include "sigil/actions/builtin_handlers.h"
#include "sigil/agent/agent.h"
#include "sigil/catalog/registry.h"
#include "sigil/deliver/delivery.h"
#include "sigil/embed/files.h"
#include "sigil/model/replay.h"
#include "sigil/server/http_server.h"
#include "sigil/store/sha256.h"
#include "store/store_test_support.h"
#include "support/beast_names.h"

namespace sigil::server {
namespace {

using namespace sigil::testing::beast_names;
using namespace std::chrono_literals;

// Generous: the machine may be loaded; a healthy run never waits this long.
constexpr auto kWait = 30s;

// Runs the io_context until `done` or kWait; false on time-out.
bool run_until(asio::io_context& ioc, const bool& done) {
  ioc.restart();
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    ioc.run_for(100ms);
    if (ioc.stopped()) ioc.restart();
  }
  return done;
}

using Response = http::response<http::string_body>;

// One HTTP request on its own connection (Connection: close); status 0 on failure.
Response http_request(unsigned short port, http::verb verb, const std::string& target,
                      const std::string& body = "",
                      const std::vector<std::pair<std::string, std::string>>& headers = {}) {
  asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  Response res;
  beast::error_code ec;
  stream.socket().connect({asio::ip::make_address("127.0.0.1"), port}, ec);
  if (ec) {
    ADD_FAILURE() << "connect: " << ec.message();
    return res;
  }
  http::request<http::string_body> req{verb, target, 11};
  req.set(http::field::host, "127.0.0.1");
  req.set(http::field::connection, "close");
  for (const auto& [name, value] : headers) req.set(name, value);
  if (!body.empty()) {
    req.set(http::field::content_type, "application/json");
    req.body() = body;
  }
  req.prepare_payload();
  bool done = false;
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(std::uint64_t{1} << 30);
  http::async_write(stream, req, [&](beast::error_code wec, std::size_t) {
    if (wec) {
      ec = wec;
      done = true;
      return;
    }
    http::async_read(stream, buffer, parser, [&](beast::error_code rec, std::size_t) {
      ec = rec;
      done = true;
    });
  });
  if (!run_until(ioc, done)) {
    ADD_FAILURE() << "no answer to " << target;
    return res;
  }
  if (ec) {
    ADD_FAILURE() << target << ": " << ec.message();
    return res;
  }
  return parser.release();
}

Response http_get(unsigned short port, const std::string& target,
                  const std::vector<std::pair<std::string, std::string>>& headers = {}) {
  return http_request(port, http::verb::get, target, "", headers);
}

std::string header(const Response& res, http::field field) { return std::string(res[field]); }

std::string str(const json::value& v) { return v.is_string() ? std::string(v.as_string()) : std::string(); }

// A blocking WebSocket client with time-outs (every wait ends after kWait).
class WsClient {
 public:
  // Connects and upgrades; status() is 101 on success, else the HTTP status the server answered.
  WsClient(unsigned short port, const std::string& target, const std::string& bearer = "") : ws_(ioc_) {
    beast::error_code ec;
    ws_.next_layer().connect({asio::ip::make_address("127.0.0.1"), port}, ec);
    if (ec) {
      ADD_FAILURE() << "connect: " << ec.message();
      return;
    }
    if (!bearer.empty()) {
      ws_.set_option(websocket::stream_base::decorator([bearer](websocket::request_type& req) {
        req.set(http::field::authorization, "Bearer " + bearer);
      }));
    }
    bool done = false;
    ws_.async_handshake(response_, "127.0.0.1", target, [&](beast::error_code hec) {
      ec = hec;
      done = true;
    });
    if (!run_until(ioc_, done)) {
      ADD_FAILURE() << "no handshake answer for " << target;
      return;
    }
    open_ = !ec;
  }

  ~WsClient() {
    beast::error_code ec;
    ws_.next_layer().close(ec);
  }

  bool open() const { return open_; }
  int status() const { return static_cast<int>(response_.result_int()); }

  void send(const json::object& frame) {
    ws_.text(true);
    beast::error_code ec;
    ws_.write(asio::buffer(json::serialize(frame)), ec);
    EXPECT_FALSE(ec) << ec.message();
  }
  void send_raw(const std::string& text) {
    ws_.text(true);
    beast::error_code ec;
    ws_.write(asio::buffer(text), ec);
    EXPECT_FALSE(ec) << ec.message();
  }

  // The next frame; nullopt when the connection ended (or nothing came within kWait: a failure).
  std::optional<json::object> read() {
    beast::flat_buffer buffer;
    bool done = false;
    beast::error_code ec;
    ws_.async_read(buffer, [&](beast::error_code rec, std::size_t) {
      ec = rec;
      done = true;
    });
    if (!run_until(ioc_, done)) {
      ADD_FAILURE() << "no frame within the time-out";
      beast::error_code ignored;
      ws_.next_layer().close(ignored);
      run_until(ioc_, done);
      return std::nullopt;
    }
    if (ec) return std::nullopt;
    json::value v = json::parse(beast::buffers_to_string(buffer.data()));
    EXPECT_TRUE(v.is_object());
    if (!v.is_object()) return std::nullopt;
    return std::move(v.as_object());
  }

  // Frames up to and including the first for which `last` is true; empty optional-less vector end when
  // the connection ends first (then the returned vector does not end with a match).
  std::vector<json::object> read_until(const std::function<bool(const json::object&)>& last) {
    std::vector<json::object> frames;
    for (;;) {
      auto frame = read();
      if (!frame) {
        ADD_FAILURE() << "the connection ended before the awaited frame";
        return frames;
      }
      frames.push_back(std::move(*frame));
      if (last(frames.back())) return frames;
    }
  }

  // Frames up to the end frame of `turn` (any turn when empty).
  std::vector<json::object> read_turn(const std::string& turn = "") {
    return read_until([turn](const json::object& f) {
      return f.at("type") == "end" && (turn.empty() || str(f.at("turn")) == turn);
    });
  }

 private:
  asio::io_context ioc_;
  websocket::stream<tcp::socket> ws_;
  websocket::response_type response_;
  bool open_ = false;
};

// Bytes that are not text: every byte value, zeros included, and more than one read chunk.
std::string binary_bytes(std::size_t n) {
  std::string out(n, '\0');
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<char>((i * 131 + i / 7) & 0xff);
  return out;
}

class WsTest : public testing::GatewayFixture {
 protected:
  WsTest() {
    files_dir_ = dir_.file("files");
    std::filesystem::create_directories(files_dir_);
    file_bytes_ = binary_bytes(150 * 1024 + 3);
    std::ofstream(files_dir_ + "/report.bin", std::ios::binary) << file_bytes_;
    voice_bytes_ = binary_bytes(5000);

    actions::BuiltinConfig config;
    config.file_roots = {files_dir_};
    load_handlers(config);
    // A voice note without espeak-ng: fixed bytes.
    handlers_.add("voice", [this](const exec::Directive&, exec::ActionContext&) {
      exec::HandlerResult result = exec::HandlerResult::ok("voice note sent");
      exec::Delivery d;
      d.op = exec::Delivery::Op::Voice;
      d.path = "note.ogg";
      d.kind = "voice";
      d.sha256 = store::sha256_hex(voice_bytes_);
      d.duration_ms = 1234;
      d.payload = deliver::make_bytes_payload(voice_bytes_, "note.ogg", "audio/ogg; codecs=opus");
      result.deliveries.push_back(std::move(d));
      return result;
    });
    use_model(50000, kReplies);
  }

  static constexpr const char* kReplies[] = {
      R"({"match":"hello","reply":"<react emoji=\"thumbsup\"/>Hello <b>there</b>! [REMEMBER:likes tea]"})",
      R"({"match":"file please","reply":"Here it is. <send-file path=\"report.bin\" caption=\"the report\"/>"})",
      R"({"match":"voice please","reply":"Listen: <voice>hi there</voice>"})",
      R"({"match":"never mind","reply":"Sure, I will stay out of this.\nNO_REPLY"})",
      R"({"match":"say it","reply":"(planning) <say>First.</say> hidden <send-file path=\"report.bin\"/><say>Second.</say>"})",
      R"({"reply":"Done."})",
  };

  template <std::size_t N>
  void use_model(double tokens_per_second, const char* const (&lines)[N]) {
    use_replay({std::begin(lines), std::end(lines)}, tokens_per_second, model::TokenSplit::words, 2);
  }

  // A reply that takes about 20 s to stream.
  void use_slow_model() {
    static std::string reply = [] {
      std::string r;
      for (int i = 0; i < 400; ++i) r += "word ";
      return json::serialize(json::object{{"reply", r}});
    }();
    const char* const lines[] = {reply.c_str()};
    use_model(20, lines);
  }

  unsigned short start(HttpServerOptions options = {}) {
    if (options.model_label.empty()) options.model_label = "replay test-model";
    options.replay_model = true;
    server_ = std::make_unique<HttpServer>(*agent_, *store_, std::move(options));
    port_ = server_->start();
    return port_;
  }

  // Connects to (user, conversation), reads hello and returns the client.
  std::unique_ptr<WsClient> connect(const std::string& conversation, const std::string& user = "u1") {
    auto client = std::make_unique<WsClient>(port_, "/v1/ws?conversation=" + conversation + "&user=" + user);
    EXPECT_TRUE(client->open()) << client->status();
    if (!client->open()) return client;
    auto hello = client->read();
    EXPECT_TRUE(hello && hello->at("type") == "hello");
    return client;
  }

  // Sends `frame` and reads what answers it, which must be a frame of `type`: that frame, or none (after a
  // failed expectation) when the socket gave nothing or another frame.
  static std::optional<json::object> answer(WsClient& client, const json::object& frame,
                                            const std::string& type) {
    client.send(frame);
    auto got = client.read();
    EXPECT_TRUE(got) << "no answer to " << json::serialize(frame);
    if (!got) return std::nullopt;
    EXPECT_EQ(str(got->at("type")), type) << json::serialize(*got);
    if (str(got->at("type")) != type) return std::nullopt;
    return got;
  }

  // A message with client id "m-1": the turn frame that answers it.
  static std::optional<json::object> start_turn(WsClient& client, const std::string& text) {
    return answer(client, {{"type", "message"}, {"text", text}, {"client_id", "m-1"}}, "turn");
  }

  static const json::object* find(const std::vector<json::object>& frames, const std::string& type,
                                  const std::string& op = "") {
    for (const auto& f : frames)
      if (str(f.at("type")) == type && (op.empty() || str(f.at("op")) == op)) return &f;
    return nullptr;
  }

  std::string files_dir_, file_bytes_, voice_bytes_;
  unsigned short port_ = 0;
};

TEST_F(WsTest, HelloCarriesModelAndTheHistoryWithoutResultLines) {
  const auto now = store::Clock::now();
  ASSERT_TRUE(store::testing::append_history(*store_, {"u1", "c1"},
                                             {{"user", "what is 2+2?", "t1"},
                                              {"assistant", "Let me see.", "t1"},
                                              {"user", "[results] calculate: 4", "t1"},
                                              {"assistant", "It is 4.", "t1"}},
                                             now));
  ASSERT_TRUE(store_->append_message({"u1", "other"}, "user", "elsewhere", "t2", now).ok());
  start();

  WsClient client(port_, "/v1/ws?conversation=c1&user=u1");
  ASSERT_TRUE(client.open());
  auto hello = client.read();
  ASSERT_TRUE(hello);
  EXPECT_EQ(hello->at("type"), "hello");
  EXPECT_EQ(hello->at("user"), "u1");
  EXPECT_EQ(hello->at("conversation"), "c1");
  EXPECT_EQ(hello->at("model"), "replay test-model");
  EXPECT_EQ(hello->at("replay"), true);
  const auto& history = hello->at("history").as_array();
  ASSERT_EQ(history.size(), 3u) << json::serialize(history);
  EXPECT_EQ(history[0].at("role"), "user");
  EXPECT_EQ(history[0].at("text"), "what is 2+2?");
  EXPECT_EQ(history[0].at("turn"), "t1");
  EXPECT_EQ(history[1].at("text"), "Let me see.");
  EXPECT_EQ(history[2].at("role"), "assistant");
  EXPECT_EQ(history[2].at("text"), "It is 4.");

  // The same over HTTP, for scripts.
  Response r = http_get(port_, "/v1/conversations/c1/messages?user=u1");
  EXPECT_EQ(r.result_int(), 200u);
  EXPECT_EQ(json::parse(r.body()).at("messages"), history);
  // user defaults to "web", who has no messages here.
  Response web = http_get(port_, "/v1/conversations/c1/messages");
  EXPECT_EQ(json::parse(web.body()).at("messages").as_array().size(), 0u);
}

// A browser drops a WebSocket whose text frame is not UTF-8 (Beast's client too): a stored text with
// ill-formed bytes reaches the page with U+FFFD in their place, and the connection stays usable.
TEST_F(WsTest, AFrameIsAlwaysUtf8) {
  ASSERT_TRUE(
      store_->append_message({"u1", "c1"}, "user", "bad \xff\xfe bytes \xe2\x82", "t1", store::Clock::now())
          .ok());
  start();
  WsClient client(port_, "/v1/ws?conversation=c1&user=u1");
  ASSERT_TRUE(client.open());
  auto hello = client.read();
  ASSERT_TRUE(hello) << "the hello frame did not arrive as a valid text frame";
  const auto& history = hello->at("history").as_array();
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].at("text").as_string(), "bad \xEF\xBF\xBD\xEF\xBF\xBD bytes \xEF\xBF\xBD");
}

TEST_F(WsTest, ATurnStreamsCleanTextAReactionOnTheUsersMessageAndEnds) {
  start();
  auto client = connect("c1");
  const auto first = start_turn(*client, "hello bot");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->at("client_id"), "m-1");
  EXPECT_EQ(first->at("scheduled"), false);
  EXPECT_EQ(first->at("text"), "hello bot");
  const std::string turn = str(first->at("turn"));
  ASSERT_FALSE(turn.empty());

  const auto frames = client->read_turn(turn);
  std::string text;
  for (const auto& f : frames) {
    EXPECT_EQ(str(f.at("turn")), turn) << json::serialize(f);
    if (f.at("type") == "text") text += str(f.at("text"));
  }
  EXPECT_EQ(text.find("<react"), std::string::npos) << text;
  EXPECT_EQ(text.find("[REMEMBER"), std::string::npos) << text;
  EXPECT_NE(text.find("Hello"), std::string::npos) << text;
  const json::object* call = find(frames, "model_call");
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->at("call"), 1);
  const json::object* reaction = find(frames, "delivery", "reaction");
  ASSERT_NE(reaction, nullptr);
  EXPECT_EQ(reaction->at("emoji"), "\xF0\x9F\x91\x8D");
  EXPECT_EQ(reaction->at("message"), "");  // the user's message that started this turn
  EXPECT_EQ(frames.back().at("status"), "ok") << json::serialize(frames.back());
  EXPECT_TRUE(frames.back().at("diagnostics").is_array());

  // The pieces are exactly the reply's clean text, as stored in the history.
  agent_->wait_idle();
  Response r = http_get(port_, "/v1/conversations/c1/messages?user=u1");
  const auto messages = json::parse(r.body()).at("messages").as_array();
  std::string stored;
  for (const auto& m : messages)
    if (m.at("role") == "assistant" && str(m.at("turn")) == turn && stored.empty())
      stored = str(m.at("text"));
  EXPECT_EQ(text, stored);
}

TEST_F(WsTest, ALateSentinelSendsASilenceFrameAfterTheText) {
  start();
  auto client = connect("c1");
  const auto first = start_turn(*client, "never mind");
  ASSERT_TRUE(first);
  const std::string turn = str(first->at("turn"));
  const auto frames = client->read_turn(turn);
  bool text_before = false;
  const json::object* silence = nullptr;
  for (const auto& f : frames) {
    if (f.at("type") == "text" && silence == nullptr) text_before = true;
    if (f.at("type") == "silence") silence = &f;
  }
  ASSERT_NE(silence, nullptr);
  EXPECT_TRUE(text_before);
  EXPECT_EQ(silence->at("late"), true);
  EXPECT_EQ(frames.back().at("type"), "end");
  // Every text message shown is taken back by a delete frame (the web channel can delete, spec 12.7).
  std::set<std::string> shown, deleted;
  for (const auto& f : frames) {
    if (f.at("type") == "text") shown.insert(str(f.at("message")));
    if (f.at("type") == "delete") deleted.insert(str(f.at("message")));
  }
  EXPECT_FALSE(shown.empty());
  EXPECT_EQ(shown, deleted);
  // Nothing of the silent reply is kept as said.
  agent_->wait_idle();
  Response r = http_get(port_, "/v1/conversations/c1/messages?user=u1");
  const json::value history = json::parse(r.body());
  for (const auto& m : history.at("messages").as_array())
    EXPECT_NE(m.at("role"), "assistant") << json::serialize(m);
}

void check_media(unsigned short port, const json::object& delivery, const std::string& bytes, bool voice) {
  EXPECT_EQ(delivery.at("size"), bytes.size());
  EXPECT_EQ(str(delivery.at("sha256")), store::sha256_hex(bytes));
  const std::string url = str(delivery.at("url"));
  ASSERT_EQ(url.rfind("/media/" + store::sha256_hex(bytes) + "/", 0), 0u) << url;
  Response r = http_get(port, url);
  EXPECT_EQ(r.result_int(), 200u);
  EXPECT_TRUE(r.body() == bytes) << "downloaded " << r.body().size() << " bytes";
  EXPECT_EQ(header(r, http::field::content_type), str(delivery.at("mime")));
  EXPECT_EQ(std::string(r["X-Content-Type-Options"]), "nosniff");
  EXPECT_EQ(std::string(r["Content-Security-Policy"]), "sandbox");
  const std::string disposition = header(r, http::field::content_disposition);
  EXPECT_EQ(disposition.rfind(voice ? "inline;" : "attachment;", 0), 0u) << disposition;
}

class WsMediaTest : public WsTest, public ::testing::WithParamInterface<bool> {};

TEST_P(WsMediaTest, FileAndVoiceDeliveriesDownloadExactlyTheirBytes) {
  HttpServerOptions options;
  if (GetParam()) {
    options.media_dir = dir_.file("media");
    std::filesystem::create_directories(options.media_dir);
  }
  start(options);
  auto client = connect("c1");
  client->send({{"type", "message"}, {"text", "file please"}});
  auto frames = client->read_turn();
  const json::object* file = find(frames, "delivery", "file");
  ASSERT_NE(file, nullptr) << json::serialize(frames.back());
  EXPECT_EQ(file->at("name"), "report.bin");
  EXPECT_EQ(file->at("caption"), "the report");
  EXPECT_TRUE(file->at("kind").is_string());
  check_media(port_, *file, file_bytes_, false);

  client->send({{"type", "message"}, {"text", "voice please"}});
  frames = client->read_turn();
  const json::object* voice = find(frames, "delivery", "voice");
  ASSERT_NE(voice, nullptr) << json::serialize(frames.back());
  EXPECT_EQ(voice->at("duration_ms"), 1234);
  EXPECT_EQ(str(voice->at("mime")).rfind("audio/", 0), 0u);
  check_media(port_, *voice, voice_bytes_, true);
}

INSTANTIATE_TEST_SUITE_P(MemoryAndDirectory, WsMediaTest, ::testing::Bool());

TEST_F(WsTest, MediaUrlsNeverReachTheFileSystemExceptByAValidHash) {
  HttpServerOptions options;
  options.media_dir = dir_.file("media");
  std::filesystem::create_directories(options.media_dir);
  // A file beside the media folder that a traversal would try to reach.
  std::ofstream(dir_.file("secret.txt")) << "secret";
  options.api_token = "tok";  // media needs no token
  start(options);
  const std::string unknown(64, 'a');
  EXPECT_EQ(http_get(port_, "/media/../secret.txt").result_int(), 400u);
  EXPECT_EQ(http_get(port_, "/media/%2e%2e/secret.txt").result_int(), 400u);
  EXPECT_EQ(http_get(port_, "/media/..%2fsecret.txt").result_int(), 400u);
  EXPECT_EQ(http_get(port_, "/media/" + std::string(64, 'A')).result_int(), 400u);
  EXPECT_EQ(http_get(port_, "/media/" + std::string(63, 'a')).result_int(), 400u);
  EXPECT_EQ(http_get(port_, "/media/").result_int(), 400u);
  EXPECT_EQ(http_get(port_, "/media/" + unknown + "/x.txt").result_int(), 404u);
  EXPECT_EQ(http_get(port_, "/media/" + unknown + "/../../secret.txt").result_int(), 404u);
  EXPECT_EQ(http_get(port_, "/media/" + unknown + "/..%2F..%2Fsecret.txt").result_int(), 404u);
}

TEST_F(WsTest, TwoWatchersBothGetATurnAndOtherConversationsDoNot) {
  start();
  auto a = connect("c1");
  auto b = connect("c1");
  auto other = connect("c2");
  a->send({{"type", "message"}, {"text", "hello both"}, {"client_id", "x"}});
  const auto from_a = a->read_turn();
  const auto from_b = b->read_turn();
  ASSERT_FALSE(from_a.empty());
  ASSERT_FALSE(from_b.empty());
  EXPECT_EQ(from_a.front().at("type"), "turn");
  EXPECT_EQ(from_b.front().at("type"), "turn");
  EXPECT_EQ(from_b.front().at("client_id"), "x");
  EXPECT_EQ(from_a.back().at("turn"), from_b.back().at("turn"));
  // The same events; text frames may be merged differently per connection (FrameQueue), so compare the
  // text and the order of the other frames, not frame counts.
  auto summary = [](const std::vector<json::object>& frames) {
    std::string text;
    std::vector<std::string> others;
    for (const auto& f : frames) {
      if (f.at("type") == "text")
        text += str(f.at("text"));
      else
        others.push_back(str(f.at("type")));
    }
    return std::make_pair(text, others);
  };
  EXPECT_EQ(summary(from_a), summary(from_b));
  EXPECT_FALSE(summary(from_a).first.empty());

  // c2 saw none of it: the first frame it gets is its own turn.
  const auto first =
      answer(*other, {{"type", "message"}, {"text", "hello c2"}, {"client_id", "mine"}}, "turn");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->at("client_id"), "mine");
}

TEST_F(WsTest, AClosedSocketDoesNotCancelItsTurn) {
  use_model(200, kReplies);  // slow enough that the turn is still running when A leaves
  start();
  auto a = connect("c1");
  auto b = connect("c1");
  const auto turn = answer(*a, {{"type", "message"}, {"text", "hello there"}}, "turn");
  ASSERT_TRUE(turn);
  a.reset();  // hangs up
  const auto frames = b->read_turn(str(turn->at("turn")));
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(frames.back().at("status"), "ok");
  agent_->wait_idle();
  Response r = http_get(port_, "/v1/conversations/c1/messages?user=u1");
  EXPECT_NE(r.body().find("Hello"), std::string::npos) << r.body();
}

TEST_F(WsTest, ConversationObserverReachesWatchers) {
  start();
  auto client = connect("c1");
  store::ScheduledTask task;
  task.scope = {"u1", "c1"};
  task.id = "t9";
  task.message = "water the plants";
  agent_->fire_task(task, "task:t9", server_->conversation_observer("u1", "c1"));
  const auto frames = client->read_turn();
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(frames.front().at("type"), "turn");
  EXPECT_EQ(frames.front().at("scheduled"), true);
  EXPECT_EQ(frames.front().at("turn"), "task:t9");
  EXPECT_EQ(frames.front().at("text"), "water the plants");
  EXPECT_TRUE(frames.front().at("client_id").is_null());
  EXPECT_EQ(frames.back().at("turn"), "task:t9");
  EXPECT_NE(find(frames, "text"), nullptr);
}

TEST_F(WsTest, ObserverOutlivingTheServerSendsNothing) {
  start();
  auto observer = server_->conversation_observer("u1", "c1");
  server_.reset();
  observer->on_text("late");  // must not touch the destroyed server
  agent::TurnSummary summary;
  summary.turn_id = "x";
  observer->on_turn_end(summary);
}

TEST_F(WsTest, RateLimitAnswersAnErrorFrameAnd429) {
  HttpServerOptions options;
  options.messages_per_minute = 0.01;  // one token per 100 minutes
  options.message_burst = 1;
  start(options);
  auto client = connect("c1");
  client->send({{"type", "message"}, {"text", "hello 1"}, {"client_id", "one"}});
  client->send({{"type", "message"}, {"text", "hello 2"}, {"client_id", "two"}});
  auto frames = client->read_until([](const json::object& f) { return f.at("type") == "error"; });
  const json::object& error = frames.back();
  EXPECT_EQ(error.at("client_id"), "two");
  EXPECT_EQ(str(error.at("message")).rfind("rate limited: ", 0), 0u) << str(error.at("message"));
  // The connection stays open and the first turn goes on.
  client->read_turn();

  Response r =
      http_request(port_, http::verb::post, "/v1/conversations/c1/messages", R"({"text":"hi","user":"u1"})");
  EXPECT_EQ(r.result_int(), 429u);
  EXPECT_GE(std::stoi(header(r, http::field::retry_after)), 1);
  // Another user has a bucket of their own.
  auto other = connect("c1", "u2");
  ASSERT_TRUE(answer(*other, {{"type", "message"}, {"text", "hello"}}, "turn"));

  Response m = http_get(port_, "/metrics");
  EXPECT_NE(m.body().find("sigil_rate_limited_total 2\n"), std::string::npos) << m.body();
  EXPECT_NE(m.body().find("sigil_ws_connections_open 2\n"), std::string::npos) << m.body();
}

TEST_F(WsTest, MalformedAndOversizedFramesGetAnErrorAndTheConnectionStays) {
  HttpServerOptions options;
  options.max_body = 1024;
  start(options);
  auto client = connect("c1");
  client->send_raw("not json");
  auto e1 = client->read();
  ASSERT_TRUE(e1);
  EXPECT_EQ(e1->at("type"), "error");
  const auto e2 = answer(*client, {{"type", "dance"}, {"client_id", "d"}}, "error");
  ASSERT_TRUE(e2);
  EXPECT_EQ(e2->at("client_id"), "d");
  const auto e3 = answer(*client, {{"type", "message"}, {"text", std::string(5000, 'x')}}, "error");
  ASSERT_TRUE(e3);
  EXPECT_NE(str(e3->at("message")).find("too large"), std::string::npos);
  ASSERT_TRUE(answer(*client, {{"type", "cancel"}, {"turn", "web-0000000000000000"}}, "error"));
  // Still usable.
  ASSERT_TRUE(answer(*client, {{"type", "message"}, {"text", "hello"}}, "turn"));
}

TEST_F(WsTest, CancelEndsTheTurn) {
  use_slow_model();
  start();
  auto client = connect("c1");
  client->send({{"type", "message"}, {"text", "go"}});
  auto frames = client->read_until([](const json::object& f) { return f.at("type") == "text"; });
  const std::string turn = str(frames.front().at("turn"));
  client->send({{"type", "cancel"}, {"turn", turn}});
  frames = client->read_turn(turn);
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(frames.back().at("status"), "model-error");
}

TEST_F(WsTest, BadQueriesAre400BeforeTheUpgrade) {
  start();
  EXPECT_EQ(WsClient(port_, "/v1/ws").status(), 400);
  EXPECT_EQ(WsClient(port_, "/v1/ws?conversation=").status(), 400);
  EXPECT_EQ(WsClient(port_, "/v1/ws?conversation=bad%20id").status(), 400);
  EXPECT_EQ(WsClient(port_, "/v1/ws?conversation=c1&user=a/b").status(), 400);
  EXPECT_EQ(WsClient(port_, "/v1/ws?conversation=c1&user=" + std::string(129, 'u')).status(), 400);
  EXPECT_EQ(WsClient(port_, "/v1/ws?conversation=c%ZZ").status(), 400);
  EXPECT_EQ(WsClient(port_, "/v1/ws?conversation=c.1-_x&user=" + std::string(128, 'u')).status(), 101);
  EXPECT_EQ(http_get(port_, "/v1/conversations/c1/messages?user=no%20spaces").result_int(), 400u);
  EXPECT_EQ(http_get(port_, "/v1/conversations/c1/messages?user=%G0").result_int(), 400u);
  // Not an upgrade.
  EXPECT_EQ(http_get(port_, "/v1/ws?conversation=c1").result_int(), 426u);
}

TEST_F(WsTest, ATokenIsRequiredWhenConfigured) {
  HttpServerOptions options;
  options.api_token = "s3cret";
  start(options);
  EXPECT_EQ(WsClient(port_, "/v1/ws?conversation=c1").status(), 401);
  EXPECT_EQ(WsClient(port_, "/v1/ws?conversation=c1&access_token=wrong").status(), 401);
  EXPECT_EQ(WsClient(port_, "/v1/ws?conversation=c1&access_token=s3cret").status(), 101);
  EXPECT_EQ(WsClient(port_, "/v1/ws?conversation=c1", "s3cret").status(), 101);
  EXPECT_EQ(http_get(port_, "/v1/conversations/c1/messages").result_int(), 401u);
  EXPECT_EQ(
      http_get(port_, "/v1/conversations/c1/messages", {{"Authorization", "Bearer s3cret"}}).result_int(),
      200u);
}

TEST_F(WsTest, ConnectionsBeyondTheLimitGet503) {
  HttpServerOptions options;
  options.max_connections = 1;
  start(options);
  auto client = connect("c1");
  EXPECT_EQ(http_get(port_, "/healthz").result_int(), 503u);
  client.reset();
  // The slot frees once the server has seen the close.
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  unsigned status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    status = http_get(port_, "/healthz").result_int();
    if (status == 200) break;
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(status, 200u);
}

TEST_F(WsTest, StopWithOpenWebSocketsEndsCleanly) {
  use_slow_model();
  start();
  auto a = connect("c1");
  auto b = connect("c2");
  a->send({{"type", "message"}, {"text", "go"}});
  a->read_until([](const json::object& f) { return f.at("type") == "text"; });
  server_->stop();
  EXPECT_TRUE(idle_within(std::chrono::seconds(10)));
  // Both connections end; a may still get the end of its (cancelled) turn first.
  for (;;) {
    auto f = a->read();
    if (!f) break;
  }
  EXPECT_FALSE(b->read());
}

TEST_F(WsTest, TheWebPageIsServedWithItsHeaders) {
  HttpServerOptions options;
  options.api_token = "tok";  // the page itself is public
  start(options);
  Response r = http_get(port_, "/");
  if (embed::find(embed::web_assets(), "index.html") == nullptr) {
    EXPECT_EQ(r.result_int(), 404u);
    return;
  }
  EXPECT_EQ(r.result_int(), 200u);
  EXPECT_EQ(header(r, http::field::content_type), "text/html; charset=utf-8");
  EXPECT_EQ(header(r, http::field::cache_control), "no-cache");
  EXPECT_EQ(std::string(r["Content-Security-Policy"]),
            "default-src 'self'; media-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors "
            "'none'");
  EXPECT_EQ(std::string(r["X-Content-Type-Options"]), "nosniff");
  for (const embed::File& f : embed::web_assets()) {
    if (f.path == "index.html") continue;
    const std::string path(f.path);
    Response a = http_get(port_, path.starts_with("assets/") ? "/" + path : "/assets/" + path);
    EXPECT_EQ(a.result_int(), 200u) << f.path;
    EXPECT_EQ(a.body(), f.data) << f.path;
  }
  EXPECT_EQ(http_get(port_, "/assets/nope.js").result_int(), 404u);
}

TEST_F(WsTest, SayModeIsSetPerConversationAndEachSayBlockIsAMessage) {
  start();
  auto client = connect("c1");
  auto watcher = connect("c1");  // a second page of the same conversation
  client->send({{"type", "settings"}, {"say_mode", true}, {"client_id", "s-1"}});
  for (auto* c : {client.get(), watcher.get()}) {
    auto frame = c->read();
    ASSERT_TRUE(frame);
    EXPECT_EQ(frame->at("type"), "settings") << json::serialize(*frame);
    EXPECT_EQ(frame->at("say_mode"), true);
  }
  ASSERT_TRUE(answer(*client, {{"type", "settings"}, {"say_mode", "yes"}}, "error"));

  client->send({{"type", "message"}, {"text", "say it"}, {"client_id", "m-1"}});
  const auto frames = client->read_turn();
  std::vector<std::string> texts, ids, order;
  for (const auto& f : frames) {
    const std::string type(f.at("type").as_string());
    if (type == "text") {
      texts.push_back(str(f.at("text")));
      if (ids.empty() || ids.back() != str(f.at("message"))) ids.push_back(str(f.at("message")));
      if (order.empty() || order.back() != "text") order.push_back("text");
    } else if (type == "delivery") {
      order.push_back(str(f.at("op")));
    }
  }
  std::string all;
  for (const auto& t : texts) all += t;
  EXPECT_EQ(all, "First.Second.");  // nothing outside the say blocks; no joint inside a message
  EXPECT_EQ(ids.size(), 2u);        // each say block its own message
  EXPECT_EQ(order, (std::vector<std::string>{"text", "file"}));  // the file after the last block (6.4)
  EXPECT_EQ(frames.back().at("say_mode"), true);
  EXPECT_TRUE(frames.back().at("delivery").at("notes").as_array().empty());

  watcher->read_turn();  // the watcher saw the same turn
  // The setting is the conversation's: a new connection is told, HTTP reads and changes it.
  WsClient again(port_, "/v1/ws?conversation=c1&user=u1");
  ASSERT_TRUE(again.open());
  auto hello = again.read();
  ASSERT_TRUE(hello);
  EXPECT_EQ(hello->at("say_mode"), true);
  Response got = http_get(port_, "/v1/conversations/c1/settings?user=u1");
  EXPECT_EQ(got.result_int(), 200);
  EXPECT_EQ(json::parse(got.body()), json::parse(R"({"say_mode":true,"title":""})"));
  EXPECT_EQ(json::parse(http_get(port_, "/v1/conversations/c2/settings?user=u1").body()),
            json::parse(R"({"say_mode":false,"title":""})"));
  Response put =
      http_request(port_, http::verb::put, "/v1/conversations/c1/settings?user=u1", R"({"say_mode":false})");
  EXPECT_EQ(put.result_int(), 200) << put.body();
  EXPECT_EQ(json::parse(put.body()), json::parse(R"({"say_mode":false,"title":""})"));
  auto told = watcher->read();
  ASSERT_TRUE(told);
  EXPECT_EQ(told->at("type"), "settings");
  EXPECT_EQ(told->at("say_mode"), false);
  EXPECT_EQ(http_request(port_, http::verb::put, "/v1/conversations/c1/settings?user=u1", "{}").result_int(),
            400);
  EXPECT_EQ(http_request(port_, http::verb::post, "/v1/conversations/c1/settings?user=u1",
                         R"({"say_mode":true,"title":""})")
                .result_int(),
            405);
}

// A client that does not read while a long reply streams as fast as the model can: the text frames that
// wait behind a write in flight are merged (FrameQueue), and the client still gets exactly the reply's
// text, in order, between the turn's model_call and end frames.
TEST_F(WsTest, TextWaitingBehindASlowReaderIsMergedAndComplete) {
  // 8,000 words of 2 KiB, emitted without pauses: far faster than one write per word goes out.
  static const std::string line = [] {
    std::string word(2047, 'x');
    std::string reply;
    for (int i = 0; i < 8000; ++i) {
      word[0] = static_cast<char>('a' + i % 26);
      reply += word;
      reply += ' ';
    }
    return json::serialize(json::object{{"reply", reply}});
  }();
  const char* const lines[] = {line.c_str()};
  use_model(0, lines);
  start();
  auto client = connect("c1");
  client->send({{"type", "message"}, {"text", "a long one please"}});
  agent_->wait_idle();  // every frame of the turn is queued or in the kernel by now

  const auto frames = client->read_until([](const json::object& f) { return f.at("type") == "end"; });
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(frames.back().at("status"), "ok") << json::serialize(frames.back());
  std::size_t text_frames = 0;
  std::string text;
  bool model_call_seen = false;
  for (const auto& f : frames) {
    if (f.at("type") == "model_call") model_call_seen = true;
    if (f.at("type") != "text") continue;
    EXPECT_TRUE(model_call_seen) << "text before the model_call frame";
    ++text_frames;
    text += str(f.at("text"));
  }
  // From the store itself: the HTTP history answers at most 8 MiB of text, and this reply is 16 MB.
  auto history = store_->recent_messages({"u1", "c1"}, 10);
  ASSERT_TRUE(history.ok());
  std::string stored;
  for (const auto& m : *history)
    if (m.role == "assistant") stored = m.text;
  EXPECT_EQ(text.size(), stored.size());
  EXPECT_TRUE(text == stored) << "the merged text differs from the reply";
  EXPECT_GT(text.size(), 16'000'000u);
  // One frame per word without merging.
  EXPECT_LT(text_frames, 4000u);
}

}  // namespace
}  // namespace sigil::server
