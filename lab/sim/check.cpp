// lab/sim/check.cpp: the block checker `--check` uses: the sanitizer's
// detectors (lab/sim/sanitize.cpp) behind the hooks of check.h.
#include "lab/sim/check.h"
#include "lab/sim/sanitize.h"

namespace lab::sim {

std::unique_ptr<BlockChecker> make_block_checker(const CheckContext& ctx) {
  return make_sanitizer(ctx);  // the detectors (sanitize.cpp, owned by the checks work)
}

}  // namespace lab::sim
