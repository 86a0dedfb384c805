#include "app/data_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace sigil::app {

namespace {

// The pid a holder wrote; 0 when the file is empty or not a number (a holder between open and write).
long read_holder(int fd) {
  char buf[32] = {};
  const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return 0;
  char* end = nullptr;
  const long pid = std::strtol(buf, &end, 10);
  return pid > 0 ? pid : 0;
}

}  // namespace

DataLock::~DataLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

DataLock::DataLock(DataLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

DataLock& DataLock::operator=(DataLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

DataLock DataLock::acquire(const std::filesystem::path& folder) {
  const std::string path = (folder / "sigil.lock").string();
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  DataLock lock(fd);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    if (error != EWOULDBLOCK) throw std::runtime_error("cannot lock " + path + ": " + std::strerror(error));
    const long holder = read_holder(fd);
    const std::string who = holder > 0 ? "process " + std::to_string(holder) : "another process";
    throw DataFolderBusy("the data folder " + folder.string() + " is in use by " + who +
                             " (a sigil serve or sigil chat): stop it, or give this one another folder "
                             "with --data",
                         holder);
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size()))
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  return lock;
}

}  // namespace sigil::app
