// Shared by the store tests: a temporary directory, fixed times, scopes.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include <chrono>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "sigil/store/store.h"
#include "store/sqlite/sqlite_store.h"

namespace sigil::store::testing {

// A fresh directory under the system temp dir, removed with everything in it.
class TempDir {
public:
    TempDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "sigil-store-XXXXXX").string();
        if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        path_ = tmpl;
    }
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return path_; }
    std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
    std::filesystem::path path_;
};

// 2023-11-14 22:13:20 UTC: tests never read the clock.
inline const TimePoint kT0{std::chrono::seconds(1'700'000'000)};

inline std::unique_ptr<Store> open_or_fail(const std::string& path, const sqlite::OpenOptions& options = {}) {
    auto opened = sqlite::SqliteStore::open(path, options);
    EXPECT_TRUE(opened.ok()) << opened.error();
    return opened.ok() ? std::move(opened).value() : nullptr;
}

}  // namespace sigil::store::testing
