// A platform fake (one of tests/fakes/*.mjs) as a child process for the C++ tests: started on a free port
// with a state directory of its own, talked to through its admin API, ended with SIGTERM. Each platform's
// fake header derives from it and adds that platform's tokens and admin calls. Tests that use a fake fail
// (never skip) without node.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "sigil/net/blocking_fetch.h"
#include "sigil/net/http_client.h"
#include "sigil/net/io_threads.h"

namespace sigil::channels::testing {

class NodeFake {
 public:
  // Runs `node tests/fakes/<script> --port 0 --state-dir <a fresh directory named after dir_tag> <extra...>`
  // and reads the port from the "listening <port>" line the fake prints first; running() says whether it did.
  NodeFake(const std::string& script, const std::string& dir_tag, const std::vector<std::string>& extra = {})
      : io_(std::make_shared<net::IoThreads>(1)), http_(io_) {
    dir_ = std::filesystem::temp_directory_path() /
           (dir_tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    std::filesystem::create_directories(dir_);
    // Built before fork(): the child of a threaded process may only make async-signal-safe calls.
    std::vector<std::string> args{"node",        std::string(SIGIL_SOURCE_DIR) + "/tests/fakes/" + script,
                                  "--port",      "0",
                                  "--state-dir", dir_.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out[2];
    if (::pipe(out) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::close(out[0]);
      ::close(out[1]);
      ::execvp("node", argv.data());
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
  ~NodeFake() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
    if (out_ != nullptr) std::fclose(out_);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  NodeFake(const NodeFake&) = delete;
  NodeFake& operator=(const NodeFake&) = delete;

  bool running() const { return !url_.empty(); }
  const std::string& url() const { return url_; }

  // One admin call; its JSON answer, or null when the answer was not JSON.
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
  // The fake's journal entries of one kind (what the channel sent it), oldest first.
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

// What every fixture that talks to a fake starts with: the fake running, and an HTTP client of its own.
// A derived SetUp calls this one first and stops when it failed (HasFatalFailure()). `Fake::kName` names
// the platform in the failure.
template <class Fake>
class NodeFakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fake.running()) << "the " << Fake::kName << " fake did not start (node 20+ needed)";
    io = std::make_shared<net::IoThreads>(1);
    http = std::make_unique<net::HttpClient>(io);
  }

  Fake fake;
  std::shared_ptr<net::IoThreads> io;
  std::unique_ptr<net::HttpClient> http;
};

}  // namespace sigil::channels::testing
