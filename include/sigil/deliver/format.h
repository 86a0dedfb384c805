// How channels write sizes and durations for people: "532 B", "12.3 KB" (powers of 1000, one decimal),
// "0:07".
#pragma once

#include <cstdint>
#include <string>

namespace sigil::deliver {

std::string human_size(std::uint64_t bytes);
std::string human_duration(std::uint64_t ms);

}  // namespace sigil::deliver
