// `sigil serve`: the gateway in the foreground (docs/configuration.md, docs/gateway.md).
#pragma once

#include <iosfwd>

#include "app/config.h"

namespace sigil::app {

// Loads the configuration (flags > environment > file > defaults), starts the gateway and prints
//   sigil: model: <describe()>
//   sigil: data: <folder>
//   sigil: listening on http://HOST:PORT
// (flushed once it accepts connections), then runs until SIGINT or SIGTERM, stops cleanly and returns 0.
// A configuration error returns 2 (the message names file, line and key, or the setting that cannot work);
// a start-up failure (the port is taken, the data folder cannot be created) returns 1.
int run_serve(const ConfigFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace sigil::app
