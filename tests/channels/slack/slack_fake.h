// The Slack fake (tests/fakes/slack.mjs) as a child process for the C++ tests: started on a free port,
// talked to through its admin API, ended with SIGTERM. Tests that use it fail (never skip) without node.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "sigil/net/blocking_fetch.h"
#include "sigil/net/http_client.h"
#include "sigil/net/io_threads.h"

namespace sigil::channels::slack::testing {

inline constexpr const char* kBotToken = "xoxb-1000000001-2000000002-sigilFakeBotTokenNotASecret";
inline constexpr const char* kAppToken = "xapp-1-A0SIGIL0001-3000000003-sigilfakeapptokennotasecret";
inline constexpr const char* kGeneral = "C0GENERAL01";
inline constexpr const char* kRandom = "C0RANDOM001";
inline constexpr const char* kDm = "D0ALICEDM01";
inline constexpr const char* kBotUser = "U0SIGILBOT1";

class SlackFake {
 public:
  SlackFake() : io_(std::make_shared<net::IoThreads>(1)), http_(io_) {
    dir_ = std::filesystem::temp_directory_path() /
           ("sigil-slack-fake-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    std::filesystem::create_directories(dir_);
    // Built before fork(): the child of a threaded process may only make async-signal-safe calls.
    const std::string script = std::string(SIGIL_SOURCE_DIR) + "/tests/fakes/slack.mjs";
    const std::string state = dir_.string();
    int out[2];
    if (::pipe(out) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::close(out[0]);
      ::close(out[1]);
      ::execlp("node", "node", script.c_str(), "--port", "0", "--state-dir", state.c_str(),
               static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(out[1]);
    FILE* f = ::fdopen(out[0], "r");
    char line[256] = {};
    if (f != nullptr && std::fgets(line, sizeof line, f) != nullptr) {
      int port = 0;
      if (std::sscanf(line, "listening %d", &port) == 1) url_ = "http://127.0.0.1:" + std::to_string(port);
    }
    out_ = f;
  }
  ~SlackFake() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
    if (out_ != nullptr) std::fclose(out_);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  SlackFake(const SlackFake&) = delete;
  SlackFake& operator=(const SlackFake&) = delete;

  bool running() const { return !url_.empty(); }
  const std::string& url() const { return url_; }
  std::string api() const { return url_ + "/api"; }

  boost::json::value admin(const std::string& method, const std::string& path, const std::string& body = "") {
    net::HttpRequest req;
    req.method = method;
    req.url = url_ + path;
    if (!body.empty()) {
      req.headers.push_back({"Content-Type", "application/json"});
      req.body = body;
    }
    const net::HttpResult r = fetches_.fetch(http_, std::move(req), 16u << 20);
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(r.body, ec);
    return ec ? boost::json::value() : v;
  }
  // A user's message in `channel` (the DM by default); its ts.
  std::string user_message(const std::string& text, const std::string& channel = kDm) {
    const auto v = admin("POST", "/_fake/messages",
                         boost::json::serialize(boost::json::object{{"text", text}, {"channel", channel}}));
    return std::string(v.at("message").at("ts").as_string());
  }
  // The channel's messages as a user sees them (GET /_fake/channels/<id>).
  boost::json::array messages(const std::string& channel) {
    const auto v = admin("GET", "/_fake/channels/" + channel);
    return v.at("channel").at("messages").as_array();
  }
  boost::json::array journal(const std::string& kind) {
    boost::json::value v = admin("GET", "/_fake/journal?kind=" + kind);
    if (!v.is_object() || !v.as_object().contains("entries")) return {};
    return v.as_object().at("entries").as_array();
  }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::shared_ptr<net::IoThreads> io_;
  net::HttpClient http_;
  net::BlockingFetches fetches_;
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
  std::string url_;
};

// What every fixture that talks to the fake starts with: the fake running, and an HTTP client of its own.
// A derived SetUp calls this one first and stops when it failed (HasFatalFailure()).
class SlackFakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fake.running()) << "the Slack fake did not start (node 20+ needed)";
    io = std::make_shared<net::IoThreads>(1);
    http = std::make_unique<net::HttpClient>(io);
  }

  SlackFake fake;
  std::shared_ptr<net::IoThreads> io;
  std::unique_ptr<net::HttpClient> http;
};

}  // namespace sigil::channels::slack::testing
