#include "conformance_vectors.h"

#include <algorithm>
#include <fstream>

namespace sigil::testing {

ConformanceVector read_vector(std::string_view line) {
  namespace json = boost::json;
  ConformanceVector v;
  v.json = json::parse(line).as_object();
  const json::object& o = v.json;
  v.id = std::string(o.at("id").as_string());
  v.reply = o.contains("input_b64") ? base64_decode(o.at("input_b64").as_string())
                                    : std::string(o.at("input").as_string());
  v.options.say = o.at("say").as_bool();
  v.options.think_open = o.contains("think_open") && o.at("think_open").as_bool();
  v.options.cut_off = o.contains("cut_off") && o.at("cut_off").as_bool();
  if (o.contains("deny"))
    for (const auto& d : o.at("deny").as_array()) v.options.deny.emplace_back(d.as_string());
  return v;
}

std::vector<ConformanceVector> read_vector_file(const std::filesystem::path& jsonl) {
  std::vector<ConformanceVector> out;
  std::ifstream in(jsonl);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(read_vector(line));
  return out;
}

std::vector<ConformanceVector> read_vector_dir(const std::filesystem::path& dir) {
  std::vector<ConformanceVector> out;
  if (!std::filesystem::is_directory(dir)) return out;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".jsonl") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::vector<ConformanceVector> vs = read_vector_file(f);
    std::move(vs.begin(), vs.end(), std::back_inserter(out));
  }
  return out;
}

}  // namespace sigil::testing
