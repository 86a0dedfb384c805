#include "sigil/exec/handler.h"

namespace sigil::exec {

ActionHandler::~ActionHandler() = default;
void HandlerTable::add(std::string action, std::shared_ptr<ActionHandler> handler) {
  handlers_[std::move(action)] = std::move(handler);
}

void HandlerTable::add(std::string action, FunctionHandler::Fn fn) {
  add(std::move(action), std::make_shared<FunctionHandler>(std::move(fn)));
}

std::shared_ptr<ActionHandler> HandlerTable::find(std::string_view action) const {
  auto it = handlers_.find(std::string(action));
  return it == handlers_.end() ? nullptr : it->second;
}

void HandlerTable::set_quick(std::string_view action) { quick_.insert(std::string(action)); }

bool HandlerTable::quick(std::string_view action) const { return quick_.contains(std::string(action)); }

}  // namespace sigil::exec
