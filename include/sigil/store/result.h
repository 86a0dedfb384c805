// The store's results: sigil::Result with a message as the error (base/result.h), for every Store call.
//
// Store calls never throw for expected failures (I/O, constraint, a bad argument): they return an Error,
// written `return Error{"sqlite store: ..."}`; error() is its message (empty when the call succeeded).
#pragma once

#include <string>

#include "sigil/base/result.h"

namespace sigil::store {

using Error = Failure<std::string>;
template <class T>
using Result = sigil::Result<T, std::string>;
using Status = sigil::Status<std::string>;

}  // namespace sigil::store
