// A SQLite VFS that counts the fsyncs (xSync calls) of every file opened through it and passes everything
// on to the default VFS. Installed as the process's default while it lives, so a store opened meanwhile
// uses it: tests count the real flushes a piece of work costs (the exactly-once log's group commit).
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <cstring>

namespace sigil::test {

class CountingVfs {
 public:
  CountingVfs() {
    base_ = sqlite3_vfs_find(nullptr);
    vfs_ = *base_;
    vfs_.zName = "sigil-counting";
    vfs_.szOsFile = static_cast<int>(sizeof(File)) + base_->szOsFile;
    vfs_.pAppData = this;
    vfs_.xOpen = &open;
    sqlite3_vfs_register(&vfs_, 1);
  }
  ~CountingVfs() {
    sqlite3_vfs_unregister(&vfs_);
    sqlite3_vfs_register(base_, 1);
  }
  CountingVfs(const CountingVfs&) = delete;
  CountingVfs& operator=(const CountingVfs&) = delete;

  int syncs() const { return syncs_.load(); }

 private:
  struct File {
    sqlite3_file base;
    sqlite3_file* real;
    CountingVfs* owner;
  };
  static sqlite3_file* real(sqlite3_file* f) { return reinterpret_cast<File*>(f)->real; }

  static int open(sqlite3_vfs* vfs, const char* name, sqlite3_file* file, int flags, int* out_flags) {
    auto* self = static_cast<CountingVfs*>(vfs->pAppData);
    auto* f = reinterpret_cast<File*>(file);
    std::memset(f, 0, sizeof(File));
    f->real = reinterpret_cast<sqlite3_file*>(f + 1);
    f->owner = self;
    const int rc = self->base_->xOpen(self->base_, name, f->real, flags, out_flags);
    if (f->real->pMethods == nullptr) return rc;
    self->methods_ = *f->real->pMethods;
    self->methods_.xClose = [](sqlite3_file* x) { return real(x)->pMethods->xClose(real(x)); };
    self->methods_.xRead = [](sqlite3_file* x, void* p, int n, sqlite3_int64 o) {
      return real(x)->pMethods->xRead(real(x), p, n, o);
    };
    self->methods_.xWrite = [](sqlite3_file* x, const void* p, int n, sqlite3_int64 o) {
      return real(x)->pMethods->xWrite(real(x), p, n, o);
    };
    self->methods_.xTruncate = [](sqlite3_file* x, sqlite3_int64 n) {
      return real(x)->pMethods->xTruncate(real(x), n);
    };
    self->methods_.xSync = [](sqlite3_file* x, int flags) {
      ++reinterpret_cast<File*>(x)->owner->syncs_;
      return real(x)->pMethods->xSync(real(x), flags);
    };
    self->methods_.xFileSize = [](sqlite3_file* x, sqlite3_int64* n) {
      return real(x)->pMethods->xFileSize(real(x), n);
    };
    self->methods_.xLock = [](sqlite3_file* x, int l) { return real(x)->pMethods->xLock(real(x), l); };
    self->methods_.xUnlock = [](sqlite3_file* x, int l) { return real(x)->pMethods->xUnlock(real(x), l); };
    self->methods_.xCheckReservedLock = [](sqlite3_file* x, int* r) {
      return real(x)->pMethods->xCheckReservedLock(real(x), r);
    };
    self->methods_.xFileControl = [](sqlite3_file* x, int op, void* a) {
      return real(x)->pMethods->xFileControl(real(x), op, a);
    };
    self->methods_.xSectorSize = [](sqlite3_file* x) { return real(x)->pMethods->xSectorSize(real(x)); };
    self->methods_.xDeviceCharacteristics = [](sqlite3_file* x) {
      return real(x)->pMethods->xDeviceCharacteristics(real(x));
    };
    self->methods_.xShmMap = [](sqlite3_file* x, int i, int n, int w, void volatile** p) {
      return real(x)->pMethods->xShmMap(real(x), i, n, w, p);
    };
    self->methods_.xShmLock = [](sqlite3_file* x, int o, int n, int f) {
      return real(x)->pMethods->xShmLock(real(x), o, n, f);
    };
    self->methods_.xShmBarrier = [](sqlite3_file* x) { real(x)->pMethods->xShmBarrier(real(x)); };
    self->methods_.xShmUnmap = [](sqlite3_file* x, int d) {
      return real(x)->pMethods->xShmUnmap(real(x), d);
    };
    self->methods_.xFetch = [](sqlite3_file* x, sqlite3_int64 o, int n, void** p) {
      return real(x)->pMethods->xFetch(real(x), o, n, p);
    };
    self->methods_.xUnfetch = [](sqlite3_file* x, sqlite3_int64 o, void* p) {
      return real(x)->pMethods->xUnfetch(real(x), o, p);
    };
    file->pMethods = &self->methods_;
    return rc;
  }

  sqlite3_vfs* base_ = nullptr;
  sqlite3_vfs vfs_{};
  sqlite3_io_methods methods_{};
  std::atomic<int> syncs_{0};
};

}  // namespace sigil::test
