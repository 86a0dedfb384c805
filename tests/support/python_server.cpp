#include "support/python_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

extern char** environ;  // NOLINT(readability-redundant-declaration)

namespace sigil::testing {
namespace {

sockaddr_in loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  return addr;
}

}  // namespace

int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr = loopback(0);
  socklen_t len = sizeof addr;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

bool loopback_accepts(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  const sockaddr_in addr = loopback(port);
  const bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

PythonServer::PythonServer(std::string_view script, std::vector<std::string> args)
    : port_(free_loopback_port()) {
  const std::string stem = std::filesystem::path(script).stem().string();
  log_ = (std::filesystem::temp_directory_path() /
          ("sigil-" + stem + "-" + std::to_string(::getpid()) + "-" + std::to_string(port_) + ".jsonl"))
             .string();
  std::filesystem::remove(log_);
  std::vector<std::string> words{"python3",
                                 std::string(SIGIL_SOURCE_DIR) + "/tests/support/" + std::string(script),
                                 std::to_string(port_), log_};
  for (std::string& a : args) words.push_back(std::move(a));
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  if (posix_spawnp(&pid_, "python3", nullptr, nullptr, argv.data(), environ) != 0) pid_ = -1;
  using namespace std::chrono_literals;
  for (int i = 0; pid_ > 0 && i < 200 && !loopback_accepts(port_); ++i) std::this_thread::sleep_for(50ms);
}

PythonServer::~PythonServer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  std::filesystem::remove(log_);
}

std::vector<boost::json::object> PythonServer::requests(std::string_view path) const {
  std::vector<boost::json::object> out;
  std::ifstream in(log_);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    boost::json::object o = boost::json::parse(line).as_object();
    if (path.empty() || o.at("path").as_string() == path) out.push_back(std::move(o));
  }
  return out;
}

}  // namespace sigil::testing
