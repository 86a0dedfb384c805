// One process per data folder: DATA/sigil.lock, held with an exclusive flock for the process's life.
//
// What it promises:
// - acquire() takes the lock or throws DataFolderBusy, whose message names the folder and the pid written
//   in the lock file by its holder ("... is in use by process 1234 ..."); any other failure is a
//   std::runtime_error naming the file.
// - The lock is the kernel's: it ends with the holder's process (kill -9 included), so a stale file never
//   blocks a restart; the pid in it is only for the message.
// - The file descriptor is close-on-exec: a child (espeak-ng, a command) never inherits the lock.
// Not a guarantee against a second process that removed the file first; the scheduler claims each task in
// the store for that case (actions/scheduler.h).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace sigil::app {

class DataFolderBusy : public std::runtime_error {
 public:
  DataFolderBusy(const std::string& message, long holder) : std::runtime_error(message), holder_(holder) {}
  long holder() const { return holder_; }  // the holder's pid; 0 when the file did not say

 private:
  long holder_;
};

class DataLock {
 public:
  DataLock() = default;
  ~DataLock();
  DataLock(DataLock&& other) noexcept;
  DataLock& operator=(DataLock&& other) noexcept;
  DataLock(const DataLock&) = delete;
  DataLock& operator=(const DataLock&) = delete;

  // Locks `folder`/sigil.lock (creating it) and writes this process's pid into it.
  static DataLock acquire(const std::filesystem::path& folder);

  bool held() const { return fd_ >= 0; }

 private:
  explicit DataLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace sigil::app
