#include "support/fake_openai_server.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cctype>
#include <deque>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

#include "support/beast_names.h"
#include "support/loopback_server.h"

namespace sigil::testing {

using namespace sigil::testing::beast_names;

namespace {
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

std::string reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

char hex_digit(unsigned v) { return "0123456789abcdef"[v & 15]; }

std::string hex(std::size_t n) {
  std::string out;
  do {
    out.insert(out.begin(), hex_digit(static_cast<unsigned>(n)));
    n >>= 4;
  } while (n != 0);
  return out;
}
}  // namespace

FakeResponse FakeResponse::sse(const std::vector<std::string>& events, bool done) {
  FakeResponse r;
  r.content_type = "text/event-stream";
  r.chunked = true;
  for (const auto& e : events) r.body += "data: " + e + "\n\n";
  if (done) r.body += "data: [DONE]\n\n";
  return r;
}

std::string openai_chunk(const json::value& delta, const std::optional<std::string>& finish) {
  json::object choice{{"index", 0}, {"delta", delta}};
  choice["finish_reason"] = finish ? json::value(*finish) : json::value(nullptr);
  json::object chunk{{"id", "chatcmpl-fake"},
                     {"object", "chat.completion.chunk"},
                     {"created", 1700000000},
                     {"model", "fake-model"},
                     {"choices", json::array{choice}}};
  return json::serialize(chunk);
}

FakeResponse FakeResponse::text_stream(const std::vector<std::string>& pieces, const std::string& finish) {
  std::vector<std::string> events;
  events.push_back(openai_chunk(json::object{{"role", "assistant"}, {"content", ""}}));
  for (const auto& piece : pieces) events.push_back(openai_chunk(json::object{{"content", piece}}));
  events.push_back(openai_chunk(json::object{}, finish));
  return sse(events);
}

FakeResponse FakeResponse::error(int status, const std::string& message) {
  FakeResponse r;
  r.status = status;
  r.body = json::serialize(
      json::object{{"error", json::object{{"message", message}, {"type", "fake_error"}, {"code", nullptr}}}});
  return r;
}

TlsIdentity make_self_signed_identity(const std::string& common_name) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  if (key == nullptr || cert == nullptr) throw std::runtime_error("OpenSSL: cannot make a key");
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), static_cast<long>(std::random_device{}() & 0x7fffffff));
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), 24 * 3600);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  const std::string san = "DNS:" + common_name + ",IP:127.0.0.1";
  for (auto [nid, value] : {std::pair<int, const char*>{NID_subject_alt_name, san.c_str()},
                            {NID_basic_constraints, "critical,CA:TRUE"},
                            {NID_subject_key_identifier, "hash"}}) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    if (ext == nullptr) throw std::runtime_error("OpenSSL: cannot make a certificate extension");
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
  }
  if (X509_sign(cert, key, EVP_sha256()) == 0) throw std::runtime_error("OpenSSL: cannot sign");
  auto to_pem = [](auto write) {
    BIO* bio = BIO_new(BIO_s_mem());
    write(bio);
    char* data = nullptr;
    long size = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<std::size_t>(size));
    BIO_free(bio);
    return out;
  };
  TlsIdentity identity;
  identity.cert_pem = to_pem([&](BIO* bio) { PEM_write_bio_X509(bio, cert); });
  identity.key_pem =
      to_pem([&](BIO* bio) { PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr); });
  X509_free(cert);
  EVP_PKEY_free(key);
  return identity;
}

struct FakeOpenAiServer::Impl {
  explicit Impl(std::optional<TlsIdentity> identity) : ssl_context(ssl::context::tls_server) {
    if (identity) {
      tls = true;
      serve_identity(ssl_context, *identity);
    }
    port = listen_on_loopback(acceptor);
    asio::co_spawn(io, accept_loop(), asio::detached);
    thread = std::thread([this] { io.run(); });
  }

  ~Impl() {
    io.stop();
    thread.join();
  }

  asio::awaitable<void> accept_loop() {
    for (;;) {
      auto [ec, socket] = co_await acceptor.async_accept(kTuple);
      if (ec) co_return;
      ++connections;
      // Small pieces must leave one by one, as a real streaming server flushes them.
      beast::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      asio::co_spawn(io, serve(std::move(socket)), asio::detached);
    }
  }

  asio::awaitable<void> serve(tcp::socket socket) {
    beast::tcp_stream plain(std::move(socket));
    beast::flat_buffer buffer;
    if (!tls) {
      while (co_await respond(plain, buffer)) {
      }
      beast::error_code ignored;
      plain.socket().shutdown(tcp::socket::shutdown_both, ignored);
      co_return;
    }
    beast::ssl_stream<beast::tcp_stream> stream(std::move(plain), ssl_context);
    auto [ec] = co_await stream.async_handshake(ssl::stream_base::server, kTuple);
    if (ec) co_return;  // e.g. the client refused our certificate
    while (co_await respond(stream, buffer)) {
    }
    beast::error_code ignored;
    beast::get_lowest_layer(stream).socket().shutdown(tcp::socket::shutdown_both, ignored);
  }

  // Serves one request; true when the connection stays open for another. `buffer` keeps what was read
  // past this request for the next.
  template <class Stream>
  asio::awaitable<bool> respond(Stream& stream, beast::flat_buffer& buffer) {
    http::request<http::string_body> request;
    auto [read_ec, read_n] = co_await http::async_read(stream, buffer, request, kTuple);
    if (read_ec) co_return false;

    FakeResponse response;
    {
      std::lock_guard lock(mutex);
      RecordedRequest recorded;
      recorded.method = std::string(request.method_string());
      recorded.target = std::string(request.target());
      recorded.authorization = std::string(request[http::field::authorization]);
      for (const auto& field : request) {
        std::string name(field.name_string());
        for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        recorded.headers.emplace_back(std::move(name), std::string(field.value()));
      }
      recorded.body = request.body();
      json::error_code jec;
      recorded.json = json::parse(recorded.body, jec);
      if (jec) recorded.json = nullptr;
      requests.push_back(recorded);
      if (responder) {
        response = responder(recorded);
      } else if (queue.empty()) {
        response = FakeResponse::error(500, "fake server: no scripted response left");
      } else {
        response = std::move(queue.front());
        queue.pop_front();
      }
    }

    asio::steady_timer timer(co_await asio::this_coro::executor);
    auto sleep = [&](std::chrono::milliseconds d) -> asio::awaitable<void> {
      if (d.count() <= 0) co_return;
      timer.expires_after(d);
      co_await timer.async_wait(kTuple);
    };
    if (response.drop_connection) co_return false;
    co_await sleep(response.delay_before_headers);

    std::string head =
        "HTTP/1.1 " + std::to_string(response.status) + " " + reason_phrase(response.status) + "\r\n";
    head += "Content-Type: " + response.content_type + "\r\n";
    for (const auto& [name, value] : response.headers) head += name + ": " + value + "\r\n";
    if (response.chunked) {
      head += "Transfer-Encoding: chunked\r\n";
    } else {
      head += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
    }
    head += response.keep_alive ? "\r\n" : "Connection: close\r\n\r\n";
    auto [head_ec, head_n] = co_await asio::async_write(stream, asio::buffer(head), kTuple);
    if (head_ec) co_return false;

    std::string_view body = response.body;
    bool truncated = false;
    if (response.close_after_bytes && *response.close_after_bytes < body.size()) {
      body = body.substr(0, *response.close_after_bytes);
      truncated = true;
    }
    const std::size_t piece =
        response.piece_size == 0 ? std::max<std::size_t>(body.size(), 1) : response.piece_size;
    for (std::size_t at = 0; at < body.size(); at += piece) {
      std::string_view part = body.substr(at, piece);
      std::string framed =
          response.chunked ? hex(part.size()) + "\r\n" + std::string(part) + "\r\n" : std::string(part);
      auto [ec, n] = co_await asio::async_write(stream, asio::buffer(framed), kTuple);
      if (ec) co_return false;
      if (at + piece < body.size()) co_await sleep(response.delay_between_pieces);
    }
    if (truncated) co_return false;  // the caller closes the connection: the stream breaks here
    while (response.endless) {
      std::string framed = hex(body.size()) + "\r\n" + std::string(body) + "\r\n";
      auto [ec, n] = co_await asio::async_write(stream, asio::buffer(framed), kTuple);
      if (ec) co_return false;
      co_await sleep(response.delay_between_pieces);
    }
    if (response.chunked) {
      auto [ec, n] = co_await asio::async_write(stream, asio::buffer(std::string_view("0\r\n\r\n")), kTuple);
      if (ec) co_return false;
    }
    co_await sleep(response.hang_after_body);
    co_return response.keep_alive && !response.close_quietly;
  }

  ssl::context ssl_context;  // outlives the streams destroyed with io
  bool tls = false;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  unsigned short port = 0;
  std::atomic<std::size_t> connections{0};
  mutable std::mutex mutex;
  std::deque<FakeResponse> queue;
  std::function<FakeResponse(const RecordedRequest&)> responder;
  std::vector<RecordedRequest> requests;
  std::thread thread;
};

FakeOpenAiServer::FakeOpenAiServer(std::optional<TlsIdentity> tls)
    : impl_(std::make_unique<Impl>(std::move(tls))) {}
FakeOpenAiServer::~FakeOpenAiServer() = default;

void FakeOpenAiServer::enqueue(FakeResponse response) {
  std::lock_guard lock(impl_->mutex);
  impl_->queue.push_back(std::move(response));
}

void FakeOpenAiServer::set_responder(std::function<FakeResponse(const RecordedRequest&)> respond) {
  std::lock_guard lock(impl_->mutex);
  impl_->responder = std::move(respond);
}

unsigned short FakeOpenAiServer::port() const { return impl_->port; }

std::string FakeOpenAiServer::base_url() const {
  return (impl_->tls ? "https://localhost:" : "http://127.0.0.1:") + std::to_string(impl_->port) + "/v1";
}

std::vector<RecordedRequest> FakeOpenAiServer::requests() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->requests;
}

std::size_t FakeOpenAiServer::request_count() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->requests.size();
}

std::size_t FakeOpenAiServer::connection_count() const { return impl_->connections.load(); }

}  // namespace sigil::testing
