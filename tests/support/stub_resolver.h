// A Resolver that answers from a table the test writes, in order per name (the first call gets the first
// answer, later calls the next, the last one repeating), and counts the questions: a DNS that rebinds.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "sigil/net/resolver.h"

namespace sigil::test {

class StubResolver final : public net::Resolver {
 public:
  // answers[name] = one answer per call; an answer is a list of address literals.
  void set(const std::string& name, std::vector<std::vector<std::string>> answers) {
    std::lock_guard lock(mutex_);
    answers_[name] = std::move(answers);
  }
  int calls(const std::string& name) const {
    std::lock_guard lock(mutex_);
    auto it = calls_.find(name);
    return it == calls_.end() ? 0 : it->second;
  }

  Result<std::vector<net::IpAddress>, std::string> resolve(std::string_view host,
                                                           std::chrono::milliseconds) override {
    if (auto literal = net::IpAddress::parse(host)) return std::vector<net::IpAddress>{*literal};
    std::lock_guard lock(mutex_);
    const std::string name(host);
    const int call = calls_[name]++;
    auto it = answers_.find(name);
    if (it == answers_.end() || it->second.empty())
      return Failure<std::string>{"cannot resolve " + name + ": Name or service not known"};
    const auto& answer =
        it->second[std::min<std::size_t>(static_cast<std::size_t>(call), it->second.size() - 1)];
    std::vector<net::IpAddress> out;
    for (const std::string& a : answer) out.push_back(*net::IpAddress::parse(a));
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::vector<std::vector<std::string>>> answers_;
  std::map<std::string, int> calls_;
};

}  // namespace sigil::test
