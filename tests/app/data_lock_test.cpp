// One process per data folder (app/data_lock.h): a second holder is refused with the first's pid, the lock
// ends with its holder, a stale file never blocks, and children never inherit the lock.
#include "app/data_lock.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "support/temp_dir.h"

namespace sigil::app {
namespace {

TEST(DataLock, ASecondHolderIsRefusedWithTheFirstsPid) {
  test::TempDir dir;
  DataLock first = DataLock::acquire(dir.path());
  EXPECT_TRUE(first.held());
  try {
    (void)DataLock::acquire(dir.path());
    FAIL() << "a second lock on the same folder was granted";
  } catch (const DataFolderBusy& e) {
    EXPECT_EQ(e.holder(), static_cast<long>(::getpid()));
    const std::string message = e.what();
    EXPECT_NE(message.find("in use by process " + std::to_string(::getpid())), std::string::npos) << message;
    EXPECT_NE(message.find(dir.path().string()), std::string::npos) << message;
  }
}

TEST(DataLock, TheLockEndsWithItsHolder) {
  test::TempDir dir;
  { DataLock first = DataLock::acquire(dir.path()); }
  DataLock again = DataLock::acquire(dir.path());
  EXPECT_TRUE(again.held());
  DataLock moved = std::move(again);
  EXPECT_TRUE(moved.held());
  EXPECT_FALSE(again.held());  // NOLINT(bugprone-use-after-move): the moved-from state is promised
}

TEST(DataLock, AStaleFileFromADeadProcessDoesNotBlock) {
  test::TempDir dir;
  std::ofstream(dir.path() / "sigil.lock") << "999999\n";
  DataLock lock = DataLock::acquire(dir.path());
  std::ifstream in(dir.path() / "sigil.lock");
  long pid = 0;
  in >> pid;
  EXPECT_EQ(pid, static_cast<long>(::getpid()));
}

TEST(DataLock, AChildProcessHoldsNoLockAfterItsParentLetGo) {
  test::TempDir dir;
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = -1;
  {
    DataLock lock = DataLock::acquire(dir.path());
    child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // exec() drops close-on-exec descriptors: the lock must not survive into the new program.
      ::close(ready[0]);
      ::dup2(ready[1], 3);
      ::execl("/bin/sh", "sh", "-c", "echo x >&3; sleep 5", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(ready[1]);
    char c = 0;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);  // the child has exec'd
  }
  // The parent let go; the child (still running) must not hold the lock.
  EXPECT_NO_THROW({ DataLock again = DataLock::acquire(dir.path()); });
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
}

}  // namespace
}  // namespace sigil::app
