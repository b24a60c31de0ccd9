// Runs a fuzz target without libFuzzer: every seed file given (files or
// directories), then PQFAST_FUZZ_ITERATIONS (default 20000) deterministic
// mutations of them (bit flips, byte sets, truncations, splices). Built with
// any compiler; the test run executes it under ASan/UBSan.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<uint8_t> read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void run(const std::vector<uint8_t>& input) {
  // An exact-size heap copy so ASan sees any read past the end.
  std::vector<uint8_t> copy(input);
  LLVMFuzzerTestOneInput(copy.empty() ? nullptr : copy.data(), copy.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::vector<uint8_t>> seeds;
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path p(argv[i]);
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::directory_iterator(p)) {
        if (e.is_regular_file()) seeds.push_back(read_all(e.path()));
      }
    } else if (std::filesystem::exists(p)) {
      seeds.push_back(read_all(p));
    }
  }
  seeds.push_back({});
  for (const auto& s : seeds) run(s);

  const char* env = std::getenv("PQFAST_FUZZ_ITERATIONS");
  const long iterations = env ? std::atol(env) : 20000;
  std::mt19937_64 rng(20261121);
  for (long it = 0; it < iterations; ++it) {
    std::vector<uint8_t> m = seeds[rng() % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      switch (rng() % 5) {
        case 0:  // flip a bit
          if (!m.empty()) m[rng() % m.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
          break;
        case 1:  // set a byte to an interesting value
          if (!m.empty()) {
            static const uint8_t kValues[] = {0, 1, 0x7f, 0x80, 0xff, 0x15, 0x1c, 0x19};
            m[rng() % m.size()] = kValues[rng() % sizeof(kValues)];
          }
          break;
        case 2:  // truncate
          if (!m.empty()) m.resize(rng() % m.size());
          break;
        case 3: {  // splice another seed's tail
          const auto& other = seeds[rng() % seeds.size()];
          if (!other.empty()) {
            const size_t from = rng() % other.size();
            m.resize(m.empty() ? 0 : rng() % m.size());
            m.insert(m.end(), other.begin() + static_cast<long>(from), other.end());
          }
          break;
        }
        default:  // insert random bytes
          for (int k = 0; k < 4; ++k) {
            m.insert(m.begin() + static_cast<long>(m.empty() ? 0 : rng() % m.size()),
                     static_cast<uint8_t>(rng()));
          }
      }
    }
    run(m);
  }
  std::printf("replayed %zu seeds and %ld mutations\n", seeds.size(), iterations);
  return 0;
}
