#include "sigil/text/random_id.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace sigil::text {
namespace {

bool only_of(std::string_view s, std::string_view alphabet) {
  return s.find_first_not_of(alphabet) == std::string_view::npos;
}

TEST(RandomId, PrefixThenLowerCaseHexDigits) {
  const std::string web = random_id("web-");
  ASSERT_EQ(web.size(), 4u + 16u);
  EXPECT_TRUE(web.starts_with("web-"));
  EXPECT_TRUE(only_of(web.substr(4), "0123456789abcdef")) << web;
  const std::string oai = random_id("oai-", 32);
  ASSERT_EQ(oai.size(), 4u + 32u);
  EXPECT_TRUE(only_of(oai.substr(4), "0123456789abcdef")) << oai;
  EXPECT_EQ(random_id("x", 0), "x");
  EXPECT_EQ(random_id("", 5).size(), 5u);
  EXPECT_EQ(random_id("", 17).size(), 17u);  // past one 64-bit draw
}

TEST(RandomId, FromAnAlphabet) {
  const std::string b = random_id("----sigil", 24, "AB");
  ASSERT_EQ(b.size(), 9u + 24u);
  EXPECT_TRUE(b.starts_with("----sigil"));
  EXPECT_TRUE(only_of(b.substr(9), "AB")) << b;
  EXPECT_EQ(random_id("p", 3, "z"), "pzzz");
  EXPECT_THROW(random_id("p", 3, ""), std::invalid_argument);
}

// 20,000 ids from 4 threads never collide (a counter, the clock, or a seed shared between threads would
// show here), and every hex digit turns up in every position of a 32-digit id.
TEST(RandomId, NeverRepeatsAndUsesEveryDigitEverywhere) {
  std::mutex mu;
  std::set<std::string> seen;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      std::vector<std::string> mine;
      for (int i = 0; i < 5000; ++i) mine.push_back(random_id("turn-"));
      std::lock_guard lock(mu);
      seen.insert(mine.begin(), mine.end());
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(seen.size(), 20000u);

  std::vector<std::set<char>> digits(32);
  for (int i = 0; i < 2000; ++i) {
    const std::string id = random_id("", 32);
    for (std::size_t k = 0; k < id.size(); ++k) digits[k].insert(id[k]);
  }
  for (std::size_t k = 0; k < digits.size(); ++k) EXPECT_EQ(digits[k].size(), 16u) << "position " << k;
}

// A forked child inherits its parent's engine; it must not make the ids the parent makes next (the store's
// session would be the same in both, and a crashed child's keys would look like the parent's own).
TEST(RandomId, AForkedChildDoesNotRepeatItsParent) {
  (void)random_id("warm-");  // the parent's engine exists before the fork
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string id = random_id("", 32);
    _exit(write(fds[1], id.data(), id.size()) == static_cast<ssize_t>(id.size()) ? 0 : 1);
  }
  close(fds[1]);
  const std::string mine = random_id("", 32);
  char buf[32];
  ASSERT_EQ(read(fds[0], buf, sizeof buf), 32);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_NE(std::string(buf, sizeof buf), mine);
}

}  // namespace
}  // namespace sigil::text
