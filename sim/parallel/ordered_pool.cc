#include "sim/parallel/ordered_pool.h"

namespace cnx::sim {

unsigned defaultJobs() {
    unsigned n = std::thread::hardware_concurrency();
    return std::clamp(n, 1u, 64u);
}

}  // namespace cnx::sim
