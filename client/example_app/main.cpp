// example_app: the demo project's plain-job application. Reads its input file ("in" in
// the slot directory, or argv[1]) and writes its output ("out", or argv[2]). Exit 0 on
// success; a bad input exits 1 with the reason on stderr (the client reports it).
#include <iostream>

#include "client/lib/example_kernel.h"

int main(int argc, char** argv) {
  auto done = tharsis::run_example_files(argc > 1 ? argv[1] : "in", argc > 2 ? argv[2] : "out");
  if (!done.ok()) {
    std::cerr << "example_app: " << done.error() << "\n";
    return 1;
  }
  return 0;
}
