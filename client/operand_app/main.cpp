// operand_app: the client-side program of operand graphs (issue 6). Runs one chunk
// operand in its slot directory (the current directory, or argv[1]): the spec file
// "spec" names the input .npy files in order, the steps and the output file. Exit 0 on
// success; bad input exits 1 with the reason on stderr (the client reports it).
#include <iostream>

#include "lib/operand/operand_job.h"

int main(int argc, char** argv) {
  const std::string slot_dir = argc > 1 ? argv[1] : ".";
  const tharsis::Status done = tharsis::operand::run_operand_job(slot_dir);
  if (!done.ok()) {
    std::cerr << "operand_app: " << done.error() << "\n";
    return 1;
  }
  return 0;
}
