// A program outside the tree, built against an installed sigil (find_package(sigil)): it parses a reply.
#include <sigil/catalog/registry.h>
#include <sigil/parse/parser.h>
#include <sigil/parse/summary.h>

#include <iostream>

int main() {
  const sigil::catalog::Registry registry = sigil::catalog::Registry::builtin();
  sigil::parse::SummarySink sink;
  sigil::parse::Parser parser(registry, sink);
  parser.feed("Hello <react emoji=\"thumbsup\"/>there. [REMEMBER:likes tea]");
  parser.finish();
  std::cout << sink.clean_text() << '|' << sink.directives().size() << '|' << sink.directives()[0].action
            << '\n';
}
