// Children get only what they need (docs/security.md, "Child processes"): a program sigil starts (named
// commands, espeak-ng) sees descriptors 0, 1 and 2 and an allow-listed environment, whatever the gateway
// has open and whatever secrets its own environment holds. Each test opens sockets and a file without
// close-on-exec first (as Asio does) and puts SIGIL_* secrets into this process's environment, then asks
// a child to show its descriptors and environment, through each way sigil starts one.
//
// What the child shows: `ls -l /proc/self/fd` lists the descriptors ls inherited plus the one it opened
// itself to read that directory (it points at /proc/<ls's pid>/fd): that one is accounted for, any other
// fails. The environment is read from /proc/$$/environ, the shell's environment as it was started (what
// the launcher passed), because `env` would also show PWD, which the shell adds itself.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../support/temp_dir.h"
#include "actions/subprocess.h"
#include "sigil/actions/command.h"
#include "sigil/actions/voice_action.h"
#include "sigil/exec/handler.h"
#include "support/handler_context.h"

namespace sigil::actions {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Prints the child's descriptors, a separator line, then the environment it was started with.
constexpr const char* kShowScript =
    "ls -l /proc/self/fd; echo '--environment--'; tr '\\0' '\\n' < /proc/$$/environ";

// Descriptors of this process that a careless launcher would pass on: inet sockets opened without
// SOCK_CLOEXEC (what Asio does) and a file opened without O_CLOEXEC.
class LeakyDescriptors {
 public:
  LeakyDescriptors() {
    for (int i = 0; i < 3; ++i) fds_.push_back(::socket(AF_INET, SOCK_STREAM, 0));
    fds_.push_back(::socket(AF_INET6, SOCK_DGRAM, 0));
    fds_.push_back(::open("/dev/null", O_RDONLY));
  }
  ~LeakyDescriptors() {
    for (int fd : fds_)
      if (fd >= 0) ::close(fd);
  }
  LeakyDescriptors(const LeakyDescriptors&) = delete;
  LeakyDescriptors& operator=(const LeakyDescriptors&) = delete;

  // Every one is open and inheritable: otherwise the test would prove nothing.
  void expect_inheritable() const {
    for (int fd : fds_) {
      ASSERT_GE(fd, 3);
      const int flags = ::fcntl(fd, F_GETFD);
      ASSERT_GE(flags, 0);
      ASSERT_EQ(flags & FD_CLOEXEC, 0) << "descriptor " << fd << " is close-on-exec";
    }
  }

 private:
  std::vector<int> fds_;
};

// Sets variables in this process's environment for one test, restoring what was there.
class ScopedEnvironment {
 public:
  ScopedEnvironment(std::initializer_list<std::pair<std::string, std::string>> vars) {
    for (const auto& [name, value] : vars) {
      const char* old = ::getenv(name.c_str());
      saved_.push_back({name, old != nullptr ? std::optional<std::string>(old) : std::nullopt});
      ::setenv(name.c_str(), value.c_str(), 1);
    }
  }
  ~ScopedEnvironment() {
    for (const auto& [name, old] : saved_) {
      if (old)
        ::setenv(name.c_str(), old->c_str(), 1);
      else
        ::unsetenv(name.c_str());
    }
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

struct ChildView {
  std::map<int, std::string> fds;    // descriptor -> what it points at
  std::vector<std::string> environ;  // NAME=value, as started
};

ChildView parse_view(const std::string& shown) {
  ChildView view;
  std::istringstream in(shown);
  std::string line;
  bool in_environment = false;
  static const std::regex fd_line(R"(\s(\d+) -> (.*)$)");
  while (std::getline(in, line)) {
    if (line == "--environment--") {
      in_environment = true;
    } else if (in_environment) {
      if (!line.empty()) view.environ.push_back(line);
    } else if (std::smatch m; std::regex_search(line, m, fd_line)) {
      view.fds[std::stoi(m[1].str())] = m[2].str();
    }
  }
  return view;
}

// The promise, checked on what one child showed.
void expect_only_what_it_needs(const std::string& shown) {
  SCOPED_TRACE("the child showed:\n" + shown);
  const ChildView view = parse_view(shown);
  ASSERT_TRUE(view.fds.count(0) && view.fds.count(1) && view.fds.count(2)) << "no stdin/stdout/stderr seen";
  static const std::regex own_directory(R"(/proc/\d+/fd)");
  int ls_directory = 0;
  for (const auto& [fd, target] : view.fds) {
    if (fd <= 2) continue;
    // ls's own descriptor for the directory it lists; anything else was inherited.
    if (std::regex_match(target, own_directory) && ls_directory++ == 0) continue;
    ADD_FAILURE() << "the child holds descriptor " << fd << " -> " << target;
  }
  EXPECT_LE(view.fds.size(), 4u);

  bool path = false, locale_kept = false;
  for (const std::string& entry : view.environ) {
    const std::string name = entry.substr(0, entry.find('='));
    EXPECT_NE(name.rfind("SIGIL_", 0), 0u) << "a SIGIL_ variable reached the child: " << entry;
    EXPECT_EQ(entry.find("secret"), std::string::npos) << "a secret reached the child: " << entry;
    const bool allowed = name == "PATH" || name == "HOME" || name == "LANG" || name == "LANGUAGE" ||
                         name.rfind("LC_", 0) == 0 || name == "TZ" || name == "TMPDIR" ||
                         name == "ESPEAK_DATA_PATH";
    EXPECT_TRUE(allowed) << "not on the allow-list: " << entry;
    path = path || name == "PATH";
    locale_kept = locale_kept || entry == "LC_SIGIL_TEST=kept";
  }
  // The allow-list passes what it lists: an empty environment would also pass the checks above.
  EXPECT_TRUE(path) << "PATH was not passed";
  EXPECT_TRUE(locale_kept) << "an LC_ variable was not passed";
}

class ChildIsolationTest : public ::testing::Test {
 protected:
  void SetUp() override { leaky_.expect_inheritable(); }

  exec::HandlerResult run(const exec::HandlerTable& table, const std::string& action, exec::Directive d) {
    const test::HandlerContext parts;  // a fresh store for each run
    exec::ActionContext ctx = parts.context();
    return table.find(action)->run(d, ctx);
  }

  static std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  LeakyDescriptors leaky_;
  ScopedEnvironment env_{{"SIGIL_MODEL_KEY", "secret"},
                         {"SIGIL_TELEGRAM_TOKEN", "secret-token"},
                         {"OPENAI_API_KEY", "secret-openai"},
                         {"LC_SIGIL_TEST", "kept"}};
  test::TempDir tmp_{"sigil-child-test"};
  const fs::path dir_ = tmp_.path();
};

TEST_F(ChildIsolationTest, RunCapturedPassesOnlyStdioAndTheAllowList) {
  detail::RunRequest request;
  request.program = "/bin/sh";
  request.args = {"-c", kShowScript};
  request.timeout = 20s;
  auto out = detail::run_captured(request);
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_TRUE(out->exited && out->exit_code == 0) << out->errors;
  expect_only_what_it_needs(out->output);
}

TEST_F(ChildIsolationTest, PassEnvAddsExactlyTheNamedVariables) {
  ScopedEnvironment extra{{"SIGIL_TEST_EXTRA", "passed-on-request"}};
  detail::RunRequest request;
  request.program = "sh";  // looked up in PATH: posix_spawnp
  request.args = {"-c", "tr '\\0' '\\n' < /proc/$$/environ"};
  request.pass_env = {"SIGIL_TEST_EXTRA", "SIGIL_NOT_SET"};
  auto out = detail::run_captured(request);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_NE(out->output.find("SIGIL_TEST_EXTRA=passed-on-request\n"), std::string::npos) << out->output;
  EXPECT_EQ(out->output.find("SIGIL_MODEL_KEY"), std::string::npos) << out->output;
  EXPECT_EQ(out->output.find("SIGIL_NOT_SET"), std::string::npos) << out->output;
}

TEST_F(ChildIsolationTest, ChildEnvironmentFiltersByName) {
  const char* ours[] = {"PATH=/bin",   "PATHX=no",    "LC_ALL=C", "LC_=no",   "LANG=C.UTF-8",
                        "SIGIL_KEY=s", "TZ=UTC",      "=odd",     "NOEQUALS", "HOME=/root",
                        "TMPDIR=/tmp", "LANGUAGE=en", "XLANG=no", "EXTRA=1",  nullptr};
  EXPECT_EQ(detail::child_environment(ours, {"EXTRA"}),
            (std::vector<std::string>{"PATH=/bin", "LC_ALL=C", "LANG=C.UTF-8", "TZ=UTC", "HOME=/root",
                                      "TMPDIR=/tmp", "LANGUAGE=en", "EXTRA=1"}));
  EXPECT_TRUE(detail::child_environment(nullptr, {}).empty());
}

TEST_F(ChildIsolationTest, NamedCommandPassesOnlyStdioAndTheAllowList) {
  CommandSpec spec;
  spec.name = "show";
  spec.program = "/bin/sh";
  spec.args = {"-c", kShowScript};
  spec.timeout = 20s;
  exec::HandlerTable table;
  add_command_handlers(table, CommandConfig{{spec}});
  exec::Directive d;
  d.action = "command";
  d.args["name"] = "show";
  const exec::HandlerResult r = run(table, "command", d);
  ASSERT_EQ(r.status, exec::HandlerResult::Status::Ok) << r.message;
  expect_only_what_it_needs(std::string(r.result.at("output").as_string()));
}

// espeak-ng replaced by a stand-in at its configured path that writes what it sees to files (its stdout
// is read as audio), then fails: the voice action's error proves the stand-in ran.
TEST_F(ChildIsolationTest, VoiceEspeakPassesOnlyStdioAndTheAllowList) {
  const fs::path stand_in = dir_ / "espeak-ng";
  {
    std::ofstream script(stand_in);
    // One redirection per command: a redirected { group } would make the shell save its stdout on a
    // descriptor of its own, which ls would then show.
    const std::string shown = "'" + (dir_ / "shown").string() + "'";
    script << "#!/bin/sh\n"
           << "ls -l /proc/self/fd > " << shown << "\n"
           << "echo '--environment--' >> " << shown << "\n"
           << "tr '\\0' '\\n' < /proc/$$/environ >> " << shown << "\n"
           << "cat > /dev/null\n"
           << "exit 3\n";
  }
  fs::permissions(stand_in, fs::perms::owner_all);
  VoiceSynth::Options options;
  options.espeak_binary = stand_in.string();
  options.temp_dir = dir_;
  exec::HandlerTable table;
  add_voice_handlers(table, VoiceConfig{std::make_shared<const VoiceSynth>(options)});
  exec::Directive d;
  d.action = "voice";
  d.args["text"] = "Hello.";
  const exec::HandlerResult r = run(table, "voice", d);
  EXPECT_EQ(r.status, exec::HandlerResult::Status::Error);
  EXPECT_NE(r.message.find("exit status 3"), std::string::npos) << r.message;
  expect_only_what_it_needs(read_file(dir_ / "shown"));
}

}  // namespace
}  // namespace sigil::actions
