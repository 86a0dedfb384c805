// Test support: the conformance suite's vectors (../shared/conformance/*.jsonl, one JSON object a line) read
// once, in one way, for every test that runs them.
#pragma once

#include <boost/json.hpp>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "run_parse.h"

namespace sigil::testing {

struct ConformanceVector {
  std::string id;
  std::string reply;   // `input`, or `input_b64` decoded
  RunOptions options;  // `say`, `think_open`, `cut_off` and `deny`; the rest as RunOptions defaults them
  boost::json::object json;  // the whole line (`expect`, `note`, ...)
};

// One line of a vectors file. Throws (boost::system::system_error, std::out_of_range, std::invalid_argument)
// on a line that is not a vector: the suite is the project's own, a bad line is a bug to see.
ConformanceVector read_vector(std::string_view line);

// Every vector of one file, in line order (blank lines skipped); empty when the file cannot be opened.
std::vector<ConformanceVector> read_vector_file(const std::filesystem::path& jsonl);

// Every vector of the *.jsonl files in `dir`, files in name order; empty when `dir` is not a folder.
std::vector<ConformanceVector> read_vector_dir(const std::filesystem::path& dir);

}  // namespace sigil::testing
