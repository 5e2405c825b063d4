// Replay driver for the fuzz targets when libFuzzer is not available (GCC builds): feeds every
// file named on the command line (directories are walked) to LLVMFuzzerTestOneInput once.
// The test suite runs it over the malformed-ONNX corpus and sample models, so the fuzz entry
// point is compiled and exercised in every build, not only in the clang fuzzing build.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {
void replayFile(const std::filesystem::path& p, int& count) {
  std::ifstream in(p, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  ++count;
}
} // namespace

int main(int argc, char** argv) {
  int count = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(arg)) {
        if (e.is_regular_file()) {
          replayFile(e.path(), count);
        }
      }
    } else if (std::filesystem::is_regular_file(arg)) {
      replayFile(arg, count);
    } else {
      std::fprintf(stderr, "fuzz replay: no such file or directory: %s\n", argv[i]);
      return 2;
    }
  }
  std::printf("fuzz replay: %d inputs, no crash\n", count);
  return count > 0 ? 0 : 1;
}
