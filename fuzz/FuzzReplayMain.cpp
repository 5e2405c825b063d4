// Driver for the fuzz targets when libFuzzer is not available (GCC builds, so every build of the
// test suite): feeds every file named on the command line (directories are walked) to
// LLVMFuzzerTestOneInput once, then, with --mutate N, N more inputs made from those seeds by
// seeded random mutations (libFuzzer's byte-level kinds: bit flips, interesting values, inserts,
// erases, copies, splices of two seeds and tokens of --dict). This is black-box fuzzing (no
// coverage feedback), deterministic for a --seed, cheap enough to run in the test command and,
// in the sanitizer build, under ASan and UBSan. On a crash the input being run is written to
// ./fuzz-crash-<seed>-<index> before the process dies, so the finding can be replayed.
//
//   <target>_fuzz_replay [--mutate N] [--seed S] [--dict FILE] SEEDS...
#include <algorithm>
#include <array>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Bytes = std::vector<uint8_t>;

Bytes readBytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// The tokens of a libFuzzer dictionary: one "quoted" string per line, with \\, \" and \xNN.
std::vector<Bytes> readDictionary(const std::string& path) {
  std::vector<Bytes> tokens;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const size_t open = line.find('"'), close = line.rfind('"');
    if (line.empty() || line[0] == '#' || open == std::string::npos || close <= open)
      continue;
    Bytes t;
    for (size_t i = open + 1; i < close; ++i) {
      if (line[i] == '\\' && i + 3 < close && line[i + 1] == 'x') {
        t.push_back(static_cast<uint8_t>(std::strtol(line.substr(i + 2, 2).c_str(), nullptr, 16)));
        i += 3;
      } else if (line[i] == '\\' && i + 1 < close) {
        t.push_back(static_cast<uint8_t>(line[++i]));
      } else {
        t.push_back(static_cast<uint8_t>(line[i]));
      }
    }
    if (!t.empty())
      tokens.push_back(std::move(t));
  }
  return tokens;
}

// The input being run, for the crash handler (set before every run; read only in the handler).
const Bytes* gCurrent = nullptr;
char gCrashPath[64] = "fuzz-crash";

extern "C" void writeCrashInput(int sig) {
  if (gCurrent != nullptr) {
    const int fd = ::open(gCrashPath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      [[maybe_unused]] const ssize_t n = ::write(fd, gCurrent->data(), gCurrent->size());
      ::close(fd);
    }
    static const char msg[] = "fuzz replay: crash; input written to ";
    [[maybe_unused]] ssize_t n = ::write(2, msg, sizeof msg - 1);
    n = ::write(2, gCrashPath, std::strlen(gCrashPath));
    n = ::write(2, "\n", 1);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void run(const Bytes& input) {
  gCurrent = &input;
  LLVMFuzzerTestOneInput(input.data(), input.size());
  gCurrent = nullptr;
}

/// Seeded byte-level mutations of the seeds, libFuzzer's kinds without its coverage feedback.
class Mutator {
public:
  Mutator(const std::vector<Bytes>& seeds, std::vector<Bytes> dict, uint64_t seed)
      : seeds_(seeds), dict_(std::move(dict)), rng_(seed) {}

  Bytes next() {
    Bytes b = seeds_[pick(seeds_.size())];
    const size_t count = 1 + pick(4);
    for (size_t i = 0; i < count; ++i)
      mutate(b);
    if (b.size() > kMaxBytes)
      b.resize(kMaxBytes);
    return b;
  }

private:
  static constexpr size_t kMaxBytes = 1 << 20;

  size_t pick(size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
  }

  void insert(Bytes& b, const Bytes& what) {
    const size_t at = pick(b.size() + 1);
    b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), what.begin(), what.end());
  }

  void mutate(Bytes& b) {
    static constexpr std::array<uint8_t, 8> kInteresting{0, 1, 0x7f, 0x80, 0xff, 0xfe, 0x10, 0x40};
    switch (pick(7)) {
    case 0: // flip a bit
      if (!b.empty())
        b[pick(b.size())] ^= static_cast<uint8_t>(1u << pick(8));
      break;
    case 1: // an interesting byte
      if (!b.empty())
        b[pick(b.size())] = kInteresting[pick(kInteresting.size())];
      break;
    case 2: // insert random bytes
      insert(b, Bytes(1 + pick(8), static_cast<uint8_t>(pick(256))));
      break;
    case 3: { // erase a range
      if (b.empty())
        break;
      const size_t at = pick(b.size()), n = 1 + pick(std::min<size_t>(16, b.size() - at));
      b.erase(b.begin() + static_cast<std::ptrdiff_t>(at),
              b.begin() + static_cast<std::ptrdiff_t>(at + n));
      break;
    }
    case 4: { // copy a chunk of itself elsewhere
      if (b.empty())
        break;
      const size_t at = pick(b.size()), n = 1 + pick(std::min<size_t>(64, b.size() - at));
      insert(b, Bytes(b.begin() + static_cast<std::ptrdiff_t>(at),
                      b.begin() + static_cast<std::ptrdiff_t>(at + n)));
      break;
    }
    case 5: { // splice: this seed's head, another's tail
      const Bytes& other = seeds_[pick(seeds_.size())];
      const size_t cut = pick(b.size() + 1), from = pick(other.size() + 1);
      b.resize(cut);
      b.insert(b.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
      break;
    }
    default: // a dictionary token
      if (!dict_.empty())
        insert(b, dict_[pick(dict_.size())]);
      break;
    }
  }

  const std::vector<Bytes>& seeds_;
  std::vector<Bytes> dict_;
  std::mt19937_64 rng_;
};

void collect(const std::filesystem::path& arg, std::vector<Bytes>& seeds) {
  if (std::filesystem::is_directory(arg)) {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(arg))
      if (e.is_regular_file())
        files.push_back(e.path());
    std::sort(files.begin(), files.end()); // the same order on every machine
    for (const auto& f : files)
      seeds.push_back(readBytes(f));
  } else {
    seeds.push_back(readBytes(arg));
  }
}

} // namespace

int main(int argc, char** argv) {
  long long mutations = 0;
  unsigned long long seed = 1;
  std::string dict;
  std::vector<Bytes> seeds;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--mutate" || a == "--seed" || a == "--dict") && i + 1 < argc) {
      const std::string v = argv[++i];
      if (a == "--mutate")
        mutations = std::atoll(v.c_str());
      else if (a == "--seed")
        seed = std::strtoull(v.c_str(), nullptr, 10);
      else
        dict = v;
    } else if (std::filesystem::exists(a)) {
      collect(a, seeds);
    } else {
      std::fprintf(stderr, "fuzz replay: no such file or directory: %s\n", a.c_str());
      return 2;
    }
  }
  if (seeds.empty()) {
    std::fprintf(stderr, "fuzz replay: no seed inputs\n");
    return 1;
  }
  std::snprintf(gCrashPath, sizeof gCrashPath, "fuzz-crash-%llu", seed);
  for (int sig : {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL})
    std::signal(sig, writeCrashInput);
  for (const Bytes& s : seeds)
    run(s);
  Mutator m(seeds, dict.empty() ? std::vector<Bytes>{} : readDictionary(dict), seed);
  for (long long i = 0; i < mutations; ++i) {
    std::snprintf(gCrashPath, sizeof gCrashPath, "fuzz-crash-%llu-%lld", seed, i);
    run(m.next());
  }
  std::printf("fuzz replay: %zu inputs and %lld mutations, no crash\n", seeds.size(), mutations);
  return 0;
}
