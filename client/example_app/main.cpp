// example_app: the demo project's plain-job application. Reads its input file ("in" in
// the slot directory, or argv[1]) and writes its output ("out", or argv[2]). Exit 0 on
// success; a bad input exits 1 with the reason on stderr (the client reports it).
#include <fstream>
#include <iostream>
#include <sstream>

#include "client/lib/example_kernel.h"

int main(int argc, char** argv) {
  std::string input_path = argc > 1 ? argv[1] : "in";
  std::string output_path = argc > 2 ? argv[2] : "out";
  std::ifstream in(input_path);
  if (!in) {
    std::cerr << "example_app: cannot open input " << input_path << "\n";
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  auto job = tharsis::parse_example_input(text.str());
  if (!job.ok()) {
    std::cerr << "example_app: " << job.error() << "\n";
    return 1;
  }
  std::ofstream out(output_path, std::ios::binary | std::ios::trunc);
  out << tharsis::run_example_job(*job);
  out.close();
  if (!out) {
    std::cerr << "example_app: cannot write output " << output_path << "\n";
    return 1;
  }
  return 0;
}
